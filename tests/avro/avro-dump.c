/* tests/avro: the core's Avro reader from the command line, for the
 * tests that compare it with python3-avro.
 *
 *	avro-dump [--ids] [--meta] [--memory] [--max-alloc N] [--limit N] FILE
 *
 * Reads FILE through a file source and writes one line of JSON per
 * record (colfs_avro_json).  --ids writes instead, per record, an object
 * of the top-level fields that carry an Iceberg field id, keyed by the
 * id and read through colfs_avro_field_by_id.  --meta writes first a
 * line {"codec": ..., "meta": {...}}.  --limit N stops after N records
 * (the reader decodes no further).  --memory reads FILE into memory and
 * opens that (colfs_avro_open_memory).  A failure writes a last line
 * "ERROR <status> <offset> <message>" and exits 1 (the records before
 * it were written). */
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/avro.h"

static void fail(const colfs_err *err)
{
	printf("ERROR %s %" PRIu64 " %s\n", colfs_status_name(err->status),
	       err->offset, err->msg);
	exit(1);
}

static void put(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY |
				JSON_REAL_PRECISION(17));

	if (!s) {
		fprintf(stderr, "avro-dump: no JSON\n");
		exit(2);
	}
	puts(s);
	free(s);
	json_decref(j);
}

int main(int argc, char **argv)
{
	bool ids = false, meta = false, memory = false;
	uint64_t max_alloc = 0, limit = UINT64_MAX;
	colfs_source *src;
	colfs_avro_reader *r;
	const colfs_avro_value *v;
	colfs_err err = { 0 };
	colfs_status st = COLFS_END;
	int i = 1, fd;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--ids") == 0)
			ids = true;
		else if (strcmp(argv[i], "--meta") == 0)
			meta = true;
		else if (strcmp(argv[i], "--memory") == 0)
			memory = true;
		else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc)
			limit = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--max-alloc") == 0 && i + 1 < argc)
			max_alloc = strtoull(argv[++i], NULL, 10);
		else
			break;
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: avro-dump [--ids] [--meta] [--memory] "
				"[--max-alloc N] [--limit N] FILE\n");
		return 2;
	}
	fd = open(argv[i], O_RDONLY);
	if (fd < 0 || colfs_source_create_fd(fd, 1, &src)) {
		perror(argv[i]);
		return 2;
	}
	if (memory) {
		size_t n = (size_t)colfs_source_size(src);
		uint8_t *buf = malloc(n ? n : 1);

		if (!buf || colfs_source_read_at(src, 0, n, buf, &err)) {
			fprintf(stderr, "avro-dump: cannot read %s\n", argv[i]);
			return 2;
		}
		st = colfs_avro_open_memory(buf, n, max_alloc, &r, &err);
		free(buf);
	} else {
		st = colfs_avro_open(src, 0, colfs_source_size(src), max_alloc,
				     &r, &err);
	}
	if (st)
		fail(&err);
	st = COLFS_END;
	if (meta) {
		json_t *m = json_object();

		json_object_set_new(m, "codec",
				    json_string(colfs_avro_codec(r)));
		json_object_set(m, "meta", colfs_avro_metadata(r));
		put(m);
	}
	while (limit-- &&
	       (st = colfs_avro_next(r, &v, NULL, &err)) == COLFS_OK) {
		if (ids) {
			const colfs_avro_schema *s = v->type;
			json_t *o = json_object();

			for (size_t k = 0; k < s->n; k++) {
				char key[32];

				if (!s->fields[k].has_id)
					continue;
				snprintf(key, sizeof key, "%" PRId64,
					 s->fields[k].id);
				json_object_set_new(o, key, colfs_avro_json(
					colfs_avro_field_by_id(v,
							s->fields[k].id)));
			}
			put(o);
		} else {
			put(colfs_avro_json(v));
		}
	}
	if (st != COLFS_END && st != COLFS_OK)
		fail(&err);
	colfs_avro_close(r);
	colfs_source_destroy(src);
	return 0;
}
