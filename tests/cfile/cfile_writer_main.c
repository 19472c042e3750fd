/* cfile-writer: write one Kudu CFile test fixture and its expected values.
 * See docs/cfile-tree.md ("The test-file writer"). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cw.h"

static void usage(FILE *f)
{
	fputs("usage: cfile-writer [options] OUT.cfile [EXPECTED.txt]\n"
	      "  --type T             UINT8..INT128, STRING, BINARY, BOOL, ...\n"
	      "  --encoding E         PLAIN PREFIX GROUP_VARINT RLE DICT BIT_SHUFFLE\n"
	      "  --compression C      NONE SNAPPY LZ4 ZLIB\n"
	      "  --v1                 kuducfil (v1; implies --no-checksums)\n"
	      "  --no-checksums       no CHECKSUM feature bit\n"
	      "  --nullable           nullable column (with NULLs)\n"
	      "  --no-posidx          no positional index\n"
	      "  --validx             value index\n"
	      "  --header-metadata    metadata pairs in the header\n"
	      "  --count N            rows (default 1000)\n"
	      "  --block-rows N       rows per data block (default 1000)\n"
	      "  --index-block-size N index node size in bytes (default 32768)\n"
	      "  --restart-interval N PREFIX restart interval (default 16)\n"
	      "  --distinct N         distinct strings (default 50)\n"
	      "  --dict-limit N       dictionary entries before plain blocks (default 1000)\n"
	      "  --seed N             value generator seed\n"
	      "  --array              array cells of the type (feature 0x2)\n"
	      "  --delta              a DeltaFile of --count deltas (LZ4 unless\n"
	      "                       --compression follows)\n"
	      "  --undo               with --delta: UNDO order (timestamps descending in a row)\n"
	      "  --bloom              a BloomFile of --count keys, --block-rows per bloom\n"
	      "  --damage D           index-cycle bad-codeword ordinal unknown-feature num-values\n"
	      "                       validx-key min-key max-key unsorted (with --validx)\n"
	      "                       delta-deletes delta-max-ts delta-column (with --delta)\n",
	      f);
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "cfile-writer: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"type", 1, 0, 't'},        {"encoding", 1, 0, 'e'},
		{"compression", 1, 0, 'c'}, {"v1", 0, 0, '1'},
		{"no-checksums", 0, 0, 'K'}, {"nullable", 0, 0, 'n'},
		{"no-posidx", 0, 0, 'P'},   {"validx", 0, 0, 'V'},
		{"header-metadata", 0, 0, 'H'}, {"count", 1, 0, 'N'},
		{"block-rows", 1, 0, 'B'},  {"index-block-size", 1, 0, 'I'},
		{"restart-interval", 1, 0, 'R'}, {"distinct", 1, 0, 'D'},
		{"dict-limit", 1, 0, 'L'},  {"seed", 1, 0, 'S'},
		{"damage", 1, 0, 'X'},      {"help", 0, 0, 'h'},
		{"delta", 0, 0, 'd'},       {"bloom", 0, 0, 'b'},
		{"array", 0, 0, 'A'},       {"undo", 0, 0, 'U'},
		{0, 0, 0, 0},
	};
	static const char *const damage[] = {"none", "index-cycle",
					     "bad-codeword", "ordinal",
					     "unknown-feature", "num-values",
					     "validx-key", "min-key", "max-key",
					     "unsorted", "delta-deletes",
					     "delta-max-ts", "delta-column"};
	cw_params p;
	char why[256];
	int c;

	cw_params_default(&p);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			p.type = cw_type_parse(optarg);
			break;
		case 'e':
			p.encoding = cw_encoding_parse(optarg);
			break;
		case 'c':
			p.compression = cw_compression_parse(optarg);
			break;
		case '1':
			p.version = 1;
			p.checksums = false;
			break;
		case 'K':
			p.checksums = false;
			break;
		case 'n':
			p.nullable = true;
			break;
		case 'P':
			p.posidx = false;
			break;
		case 'V':
			p.validx = true;
			break;
		case 'H':
			p.header_metadata = true;
			break;
		case 'N':
			p.count = (uint32_t)num(optarg);
			break;
		case 'B':
			p.block_rows = (uint32_t)num(optarg);
			break;
		case 'I':
			p.index_block_size = (uint32_t)num(optarg);
			break;
		case 'R':
			p.restart_interval = (uint32_t)num(optarg);
			break;
		case 'D':
			p.distinct = (uint32_t)num(optarg);
			break;
		case 'L':
			p.dict_limit = (uint32_t)num(optarg);
			break;
		case 'S':
			p.seed = (uint32_t)num(optarg);
			break;
		case 'X': {
			size_t i;
			for (i = 0; i < sizeof(damage) / sizeof(*damage); i++)
				if (!strcmp(optarg, damage[i]))
					break;
			if (i == sizeof(damage) / sizeof(*damage)) {
				fprintf(stderr, "cfile-writer: unknown damage %s\n",
					optarg);
				return 2;
			}
			p.damage = (enum cw_damage)i;
			break;
		}
		case 'A':
			p.array = true;
			break;
		case 'U':
			p.undo = true;
			break;
		case 'd':
			p.role = CW_DELTA;
			p.compression = 3; /* LZ4, as Kudu writes DeltaFiles */
			break;
		case 'b':
			p.role = CW_BLOOM;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (p.type < 0 || p.encoding < 0 || p.compression < 0) {
		fprintf(stderr, "cfile-writer: unknown type, encoding or "
				"compression name\n");
		return 2;
	}
	if (optind >= argc || argc - optind > 2) {
		usage(stderr);
		return 2;
	}
	if (cw_write(&p, argv[optind], optind + 1 < argc ? argv[optind + 1]
							 : NULL,
		     why, sizeof(why))) {
		fprintf(stderr, "cfile-writer: %s\n", why);
		return 1;
	}
	return 0;
}
