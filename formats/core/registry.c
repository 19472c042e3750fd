/* colfs: the list of format modules and the list of source kinds.
 * Adding a format, or a kind of source, is one line here. */
#include "sourcekind.h"
#include "tree.h"

extern const colfs_format colfs_format_parquet;
extern const colfs_format colfs_format_orc;
extern const colfs_format colfs_format_cfile;
extern const colfs_format colfs_format_kudu;
extern const colfs_format colfs_format_arrow;
extern const colfs_format colfs_format_dataset;

const colfs_format *const colfs_formats[] = {
	&colfs_format_parquet,
	&colfs_format_orc,
	&colfs_format_kudu,
	&colfs_format_cfile,
	&colfs_format_arrow,
	NULL,
};

/* What a directory, a listing, opens as (formats/dataset). */
const colfs_format *const colfs_format_directory = &colfs_format_dataset;

extern const colfs_source_kind colfs_source_kind_http;
extern const colfs_source_kind colfs_source_kind_s3_prefix;
extern const colfs_source_kind colfs_source_kind_s3;
extern const colfs_source_kind colfs_source_kind_azure_prefix;
extern const colfs_source_kind colfs_source_kind_azure;
extern const colfs_source_kind colfs_source_kind_gcs_prefix;
extern const colfs_source_kind colfs_source_kind_gcs;
extern const colfs_source_kind colfs_source_kind_hf_prefix;
extern const colfs_source_kind colfs_source_kind_hf;
extern const colfs_source_kind colfs_source_kind_kudu;
extern const colfs_source_kind colfs_source_kind_directory;
extern const colfs_source_kind colfs_source_kind_file;

/* In the order they are asked (colfs_source_kind_of): a prefix before an
 * object, a Kudu data root before a directory; the file claims the rest. */
const colfs_source_kind *const colfs_source_kinds[] = {
	&colfs_source_kind_http,
	&colfs_source_kind_s3_prefix,
	&colfs_source_kind_s3,
	&colfs_source_kind_azure_prefix,
	&colfs_source_kind_azure,
	&colfs_source_kind_gcs_prefix,
	&colfs_source_kind_gcs,
	&colfs_source_kind_hf_prefix,
	&colfs_source_kind_hf,
	&colfs_source_kind_kudu,
	&colfs_source_kind_directory,
	&colfs_source_kind_file,
	NULL,
};
