/* colfs: an Apache Kudu log block container as a tree (docs/kudu-tree.md).
 *
 * Kudu's log block manager keeps many blocks in one container: `<id>.data`
 * holds the blocks one after another (each starting at a multiple of the
 * file system block size; a deleted block's bytes are punched out) and
 * `<id>.metadata` lists them.  The metadata file is a Kudu protobuf
 * container: the magic "kuducntr", a little-endian version (1 or 2), in
 * version 2 a CRC-32C of magic and version; then records: a 4-byte length,
 * (version 2) a CRC-32C of the length, the body, and a CRC-32C of the body
 * (version 1: of the length and the body).  The first record is a
 * ContainerSupHeaderPB naming the record type (kudu.BlockRecordPB), the
 * others are BlockRecordPB: CREATE of a block at an offset and length of
 * the data file, or DELETE.
 *
 * The tree's source is the data file (the Kudu source kind, kudu_source.c,
 * finds the pair from either name); the metadata file is read whole at
 * open.  Each live block that is a CFile is shown as the CFile's own tree
 * (a window of the data file, colfs_dir_graft); another block as `raw`.
 */
#include "kudu_int.h"

/* "<stem>.data" or "<stem>.metadata": the other name of the pair. */
static bool pair_paths(const char *path, char *data, char *meta, size_t len)
{
	size_t stem;
	if (kudu_ends_with(path, ".metadata"))
		stem = strlen(path) - strlen(".metadata");
	else if (kudu_ends_with(path, ".data"))
		stem = strlen(path) - strlen(".data");
	else
		return false;
	if (stem + sizeof ".metadata" > len)
		return false;
	snprintf(data, len, "%.*s.data", (int)stem, path);
	snprintf(meta, len, "%.*s.metadata", (int)stem, path);
	return true;
}

/* Is `path` a Kudu container or data root (kudu_source.c)? */
bool kudu_claim_path(const char *path, char *source, size_t source_len)
{
	char data[4096], meta[4096];
	if (kudu_root_claim(path, source, source_len))
		return true;
	if (!pair_paths(path, data, meta, sizeof data) ||
	    strlen(data) >= source_len || !kudu_starts_with_magic(meta))
		return false;
	snprintf(source, source_len, "%s", data);
	return true;
}

static bool kudu_probe(const uint8_t *head, size_t head_len,
		       const uint8_t *tail, size_t tail_len, uint64_t size)
{
	(void)tail;
	(void)tail_len;
	(void)size;
	return head_len >= 8 && memcmp(head, KUDU_MAGIC, 8) == 0;
}

static void kudu_close(void *state)
{
	kudu_state *k = state;
	if (!k)
		return;
	kudu_root_free(k->root);
	kudu_state_free(k);
}

static colfs_status kudu_open(colfs_tree *t, colfs_err *err)
{
	const colfs_options *o = colfs_tree_options(t);
	uint64_t max_alloc = o->max_alloc ? o->max_alloc : (1ull << 30);
	colfs_source *src = colfs_tree_source(t);
	char data[4096], meta[4096];
	uint8_t head[8];

	if (kudu_is_dir(colfs_tree_display_name(t)))
		return kudu_root_open(t, err);
	if (colfs_source_read_at(src, 0, 8, head, NULL) == COLFS_OK &&
	    memcmp(head, KUDU_MAGIC, 8) == 0)
		return kudu_tablet_open(t, err);
	if (!pair_paths(colfs_tree_display_name(t), data, meta, sizeof data))
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "a Kudu container is opened as <id>.data or <id>.metadata");
	kudu_state *k = calloc(1, sizeof *k);
	if (!k)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	colfs_tree_set_format_state(t, k);
	k->meta_path = strdup(meta);
	if (!k->meta_path)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	k->data_size = colfs_source_size(src);
	COLFS_TRY(kudu_meta_read(k, max_alloc, err));
	COLFS_TRY(kudu_pbc_read(t, k, meta, max_alloc, err));
	COLFS_TRY(kudu_blocks_check(t, k, src));
	colfs_node_set_ops(colfs_tree_root(t), &kudu_container_ops, NULL);
	return COLFS_OK;
}

const colfs_format colfs_format_kudu = {
	.name = "kudu",
	.probe = kudu_probe,
	.open = kudu_open,
	.close = kudu_close,
};
