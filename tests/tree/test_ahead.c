/* Tests of decoding ahead (formats/core/ahead.c, through tree_read.c): a
 * synthetic format with concurrent streams whose pieces record which
 * thread rendered them.  Sequential reads get the same bytes as a tree
 * without workers, every piece is rendered once, workers do render ahead,
 * the cache budget bounds what is ahead, several readers (of one stream
 * and of several) get the same bytes as a serial read, a seek or a close
 * cancels, learning lengths up to a far offset renders on the workers,
 * reads lent in place (colfs_handle_read_lent) give the same bytes, and
 * destroying the tree with work queued ends cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/thread.h"
#include "core/tree.h"

#define NPIECES 400
#define NSTREAMS 3

static pthread_t main_thread;
static unsigned calls[NSTREAMS][NPIECES];   /* renders of each piece */
static unsigned worker_calls;              /* renders off the main thread */
static unsigned slow_us;                   /* each piece takes this long */

/* Piece i of stream k: (i % 13) + 1 lines naming both. */
static void expected_piece(uint64_t k, uint64_t i, colfs_buf *out)
{
	for (uint64_t l = 0; l <= i % 13; l++)
		colfs_buf_printf(out, "s%llu p%llu l%llu\n",
				 (unsigned long long)k, (unsigned long long)i,
				 (unsigned long long)l);
}

static colfs_status piece(colfs_tree *t, colfs_node *f, uint64_t i,
			  colfs_buf *out)
{
	uint64_t k = colfs_node_a(f);

	(void)t;
	if (i >= NPIECES)
		return COLFS_END;
	__atomic_add_fetch(&calls[k][i], 1, __ATOMIC_RELAXED);
	if (!pthread_equal(pthread_self(), main_thread))
		__atomic_add_fetch(&worker_calls, 1, __ATOMIC_RELAXED);
	if (slow_us)
		usleep(slow_us);
	expected_piece(k, i, out);
	return COLFS_OK;
}

static const colfs_node_ops stream_ops = {.piece = piece, .concurrent = true};

static colfs_status populate_root(colfs_tree *t, colfs_node *root)
{
	for (uint64_t k = 0; k < NSTREAMS; k++) {
		char name[16];
		snprintf(name, sizeof name, "s%llu", (unsigned long long)k);
		colfs_node_set_args(colfs_dir_add_stream(t, root, name,
							 &stream_ops, NULL),
				    k, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops root_ops = {.populate = populate_root};

static colfs_status open_fn(colfs_tree *t, colfs_err *err)
{
	(void)err;
	colfs_node_set_ops(colfs_tree_root(t), &root_ops, NULL);
	return COLFS_OK;
}

static const colfs_format fmt = {.name = "ahead-test", .open = open_fn};

static colfs_tree *open_tree(const char *opts)
{
	char path[] = "/tmp/colfs-ahead-test-XXXXXX";
	int fd = mkstemp(path);
	colfs_options o = {0};
	colfs_tree *t;
	char why[256];
	char copy[256];

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	unlink(path);
	snprintf(copy, sizeof copy, "%s", opts);
	static char kept[8][256];
	static unsigned nkept;
	for (char *kv = strtok(copy, ","); kv; kv = strtok(NULL, ",")) {
		char *slot = kept[nkept++ % 8];
		snprintf(slot, 256, "%s", kv);
		assert_int_equal(colfs_options_set(&o, slot), COLFS_OK);
	}
	assert_int_equal(colfs_tree_open_format(fd, "t", &fmt, &o, &t, why,
						sizeof why),
			 COLFS_OK);
	memset(calls, 0, sizeof calls);
	worker_calls = 0;
	return t;
}

static colfs_node *stream(colfs_tree *t, unsigned k)
{
	char name[16];
	colfs_node *n;

	snprintf(name, sizeof name, "s%u", k);
	assert_int_equal(colfs_tree_resolve(t, name, &n), COLFS_OK);
	return n;
}

static void expected(unsigned k, colfs_buf *want)
{
	for (uint64_t i = 0; i < NPIECES; i++)
		expected_piece(k, i, want);
}

/* Read stream k whole in `chunk`-byte reads and compare. */
static void read_check(colfs_tree *t, unsigned k, size_t chunk)
{
	colfs_buf want = COLFS_BUF_INIT, got = COLFS_BUF_INIT;
	colfs_handle *h;
	char *tmp = malloc(chunk);

	expected(k, &want);
	assert_int_equal(colfs_node_open(t, stream(t, k), &h), COLFS_OK);
	for (;;) {
		size_t n;
		assert_int_equal(colfs_handle_read(h, got.len, chunk, tmp, &n),
				 COLFS_OK);
		if (!n)
			break;
		colfs_buf_append(&got, tmp, n);
	}
	colfs_handle_close(h);
	assert_int_equal(got.len, want.len);
	assert_memory_equal(got.data, want.data, want.len);
	colfs_buf_free(&want);
	colfs_buf_free(&got);
	free(tmp);
}

static void test_sequential(void **state)
{
	(void)state;
	colfs_tree *t = open_tree("decode_threads=2");
	/* Pieces that take a while, so the workers surely get some. */
	slow_us = 100;
	read_check(t, 0, 3000);
	slow_us = 0;
	for (unsigned i = 0; i < NPIECES; i++)
		assert_int_equal(calls[0][i], 1);   /* never twice */
	assert_true(worker_calls > 0);          /* workers went ahead */
	colfs_tree_destroy(t);

	/* decode_threads=0: the same bytes, all on this thread. */
	t = open_tree("decode_threads=0");
	read_check(t, 0, 3000);
	assert_int_equal(worker_calls, 0);
	colfs_tree_destroy(t);
}

/* Pieces are 9 to about 160 bytes: with a 1 KiB cache half of it holds
 * three of the largest ahead, and the bytes are still right. */
static void test_budget(void **state)
{
	(void)state;
	colfs_tree *t = open_tree("decode_threads=2,cache_size=1024");
	read_check(t, 1, 700);
	colfs_tree_destroy(t);
	/* Half the cache is smaller than any piece: nothing ahead. */
	t = open_tree("decode_threads=2,cache_size=16");
	read_check(t, 1, 700);
	assert_int_equal(worker_calls, 0);
	colfs_tree_destroy(t);
}

/* Reader r of a test: stream r % NSTREAMS, in reads of its own size. */
static void reader(void *t, size_t r)
{
	read_check(t, (unsigned)(r % NSTREAMS), 500 + 1000 * r);
}

/* Six readers at once: two of each stream, in different read sizes. */
static void test_readers(void **state)
{
	(void)state;
	colfs_tree *t = open_tree("decode_threads=3,cache_size=64K");

	colfs_parallel_for(6, 6, reader, t);
	colfs_tree_destroy(t);
}

/* A far read learns the lengths before it on the workers; a seek back
 * and a close with work queued leave the bytes right and nothing
 * running. */
static void test_seek_and_close(void **state)
{
	(void)state;
	colfs_tree *t = open_tree("decode_threads=2");
	colfs_buf want = COLFS_BUF_INIT;
	colfs_handle *h;
	char buf[100];
	size_t n;

	expected(2, &want);
	slow_us = 100;
	assert_int_equal(colfs_node_open(t, stream(t, 2), &h), COLFS_OK);
	assert_int_equal(colfs_handle_read(h, want.len - 50, sizeof buf, buf,
					   &n),
			 COLFS_OK);
	assert_int_equal(n, 50);
	assert_memory_equal(buf, want.data + want.len - 50, 50);
	slow_us = 0;
	assert_true(worker_calls > 0);
	for (unsigned i = 0; i < NPIECES; i++)
		assert_int_equal(calls[2][i], 1);
	assert_int_equal(colfs_handle_read(h, 10, sizeof buf, buf, &n),
			 COLFS_OK);
	assert_int_equal(n, sizeof buf);
	assert_memory_equal(buf, want.data + 10, sizeof buf);
	colfs_handle_close(h);
	colfs_buf_free(&want);

	/* Slow pieces: open, read the start, close, and destroy while the
	 * workers are busy ahead. */
	slow_us = 2000;
	assert_int_equal(colfs_node_open(t, stream(t, 0), &h), COLFS_OK);
	assert_int_equal(colfs_handle_read(h, 0, sizeof buf, buf, &n),
			 COLFS_OK);
	colfs_handle_close(h);
	unsigned before = __atomic_load_n(&worker_calls, __ATOMIC_RELAXED);
	usleep(50000);
	/* Closed: at most the pieces that were rendering then finish. */
	assert_true(__atomic_load_n(&worker_calls, __ATOMIC_RELAXED) <=
		    before + 2);
	assert_int_equal(colfs_node_open(t, stream(t, 1), &h), COLFS_OK);
	assert_int_equal(colfs_handle_read(h, 0, sizeof buf, buf, &n),
			 COLFS_OK);
	colfs_handle_close(h);
	colfs_tree_destroy(t);
	slow_us = 0;
}

/* Read stream k whole with colfs_handle_read_lent, `chunk` bytes at a
 * time in at most `max` spans, and compare. */
static void read_check_lent(colfs_tree *t, unsigned k, size_t chunk,
			    size_t max)
{
	colfs_buf want = COLFS_BUF_INIT, got = COLFS_BUF_INIT;
	colfs_lent lent[32];
	colfs_handle *h;

	assert_true(max <= 32);
	expected(k, &want);
	assert_int_equal(colfs_node_open(t, stream(t, k), &h), COLFS_OK);
	for (;;) {
		size_t count, n, sum = 0;
		assert_int_equal(colfs_handle_read_lent(h, got.len, chunk,
							lent, max, &count,
							&n),
				 COLFS_OK);
		assert_true(count <= max);
		for (size_t i = 0; i < count; i++) {
			colfs_buf_append(&got, lent[i].data, lent[i].len);
			sum += lent[i].len;
		}
		assert_int_equal(sum, n);
		/* held while used: readers of the other streams churn the
		 * cache meanwhile, and ASan sees a freed piece read */
		colfs_lent_release(lent, count);
		if (!n)
			break;
	}
	colfs_handle_close(h);
	assert_int_equal(got.len, want.len);
	assert_memory_equal(got.data, want.data, want.len);
	colfs_buf_free(&want);
	colfs_buf_free(&got);
}

/* Lent reader r: stream r % NSTREAMS in reads of its own size, the last
 * one through 3 spans at most, the others 32. */
static void lent_reader(void *t, size_t r)
{
	read_check_lent(t, (unsigned)(r % NSTREAMS), 700 + 1500 * r,
			r == 3 ? 3 : 32);
}

/* Reads lent in place (colfs_handle_read_lent, what the daemon answers
 * FUSE from): the bytes of a serial read whether a read fits its spans
 * or not (the rest copied into the last one), with the workers ahead or
 * none, and from four readers at once through a cache smaller than what
 * they hold. */
static void test_lent(void **state)
{
	(void)state;
	colfs_tree *t = open_tree("decode_threads=2");
	read_check_lent(t, 0, 100, 2);      /* within a piece or two */
	read_check_lent(t, 1, 5000, 2);     /* one piece, the rest copied */
	read_check_lent(t, 2, 5000, 32);    /* ~60 pieces: 31, then copied */
	read_check_lent(t, 0, 1 << 20, 32); /* past the end at once */
	colfs_tree_destroy(t);

	t = open_tree("decode_threads=0,cache_size=512");
	read_check_lent(t, 1, 3000, 8);
	colfs_tree_destroy(t);

	t = open_tree("decode_threads=2,cache_size=2K");
	colfs_parallel_for(4, 4, lent_reader, t);
	colfs_tree_destroy(t);
}

/* decode_threads takes 0 to 64. */
static void test_option(void **state)
{
	colfs_options o = {0};

	(void)state;
	assert_int_equal(colfs_options_set(&o, "decode_threads=0"), COLFS_OK);
	assert_int_equal(o.decode_threads, -1);
	assert_int_equal(colfs_options_set(&o, "decode_threads=64"), COLFS_OK);
	assert_int_equal(o.decode_threads, 64);
	assert_int_equal(colfs_options_set(&o, "decode_threads=65"),
			 COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "decode_threads=x"),
			 COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "decode_threads"),
			 COLFS_ECORRUPT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_readers),
		cmocka_unit_test(test_seek_and_close),
		cmocka_unit_test(test_lent),
		cmocka_unit_test(test_option),
	};
	main_thread = pthread_self();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
