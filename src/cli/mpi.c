/* gpubench-mpi — the collectives across MPI ranks (meson -Dmpi; a separate executable, so that
 * `gpubench` itself never links MPI). This file is the executable's own source, as main.c is
 * gpubench's.
 *
 *   mpirun -np 2 gpubench-mpi allreduce [OPTIONS]
 *   mpirun -np 2 gpubench-mpi collective [--coll LIST] [--dtype LIST] [--op LIST] [OPTIONS]
 *
 * Every rank opens one device: the device whose index is its local rank (its position among the
 * ranks of its node) modulo the backend's device count, or the --device list's entry for that
 * local rank. Rank 0 alone writes the results file, with every rank's device in rank order
 * (suites/mpi_allreduce.h and suites/mpi_coll.h: the method, figures and verification). */
#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "base/error.h"
#include "base/units.h"
#include "base/util.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "gb-config.h"
#include "outputs/summary_out.h"
#include "outputs/writer.h"
#include "results/results.h"
#include "suites/mpi_allreduce.h"
#include "suites/mpi_coll.h"

#define MAX_SIZES 32
#define MAX_LIST 8

static void mpi_usage(FILE *f)
{
    fprintf(f, "usage: mpirun -np N gpubench-mpi allreduce [OPTIONS]\n"
               "       mpirun -np N gpubench-mpi collective [--coll LIST] [--dtype LIST]\n"
               "                                            [--op LIST] [--inplace] [--root R]\n"
               "                                            [--buffers device|host] [OPTIONS]\n"
               "  allreduce: the sum of a float buffer across the ranks, host-staged through\n"
               "  MPI_Allreduce. collective: each collective of --coll (allreduce, allgather,\n"
               "  reducescatter, broadcast, reduce, alltoall, sendrecv; default all), of each\n"
               "  --dtype (f32, i32, f16, bf16; default f32) and, where it reduces, each --op\n"
               "  (sum, max; default sum), host-staged through the MPI call. algbw and busbw as\n"
               "  nccl-tests defines them, per-rank times gathered to rank 0, which alone\n"
               "  writes the results.\n"
               "  --inplace             one buffer for input and result (default: two)\n"
               "  --root R              root rank of broadcast and reduce (default 0)\n"
               "  --buffers KIND        device: device buffers staged through pinned host\n"
               "                        memory (default); host: the MPI call alone on host\n"
               "                        buffers, a barrier after each operation (OSU's method),\n"
               "                        no backend loaded (--backend and --device unused)\n"
               "  -o, --output FILE     results file (default results/mpi-COMMAND-UTCTIME.json)\n"
               "  -b, --backend NAME    opencl or cuda (default: the first with a device)\n"
               "  -d, --device LIST     device index for each local rank, comma list (default:\n"
               "                        the local rank modulo the number of devices)\n"
               "  -s, --size LIST       bytes per rank, comma list (default 64KiB,1MiB,16MiB)\n"
               "  -n, --iters N         timed operations per size (default 20)\n"
               "  -w, --warmup N        untimed operations first (default 5)\n"
               "  -f, --format NAME     the summary's format on stdout: text (default),\n"
               "                        markdown, json, csv, openmetrics (as gpubench run -f)\n"
               "  -q, --quiet           no progress lines on stderr, no summary on stdout\n"
               "exit status: 0 ok, 1 a case failed, 2 usage, device or MPI error\n");
}

struct mpi_args {
    const char *out, *backend, *devices, *format;
    uint64_t sizes[MAX_SIZES];
    size_t nsizes;
    struct gb_mpi_ar_opts o;
    bool quiet, help;
    /* collective only: the lists, in order, and the shared settings */
    bool collective, inplace, host;
    int root;
    enum gb_coll_op colls[MAX_LIST];
    enum gb_dtype dtypes[MAX_LIST];
    enum gb_coll_redop redops[MAX_LIST];
    size_t ncolls, ndtypes, nredops;
};

/* Splits a comma list into ints by `lookup` (-1: no such name). Returns 0 or GB_EXIT_USAGE. */
static int parse_list(const char *opt, const char *list, int (*lookup)(const char *), int *v,
                      size_t *n, FILE *err)
{
    char buf[256];
    *n = 0;
    /* A list cut short could end in another name (reducescatter as reduce): refused whole. */
    if ((size_t)snprintf(buf, sizeof buf, "%s", list) >= sizeof buf) {
        if (err)
            fprintf(err, "gpubench-mpi: --%s: the list is longer than %zu characters\n", opt,
                    sizeof buf - 1);
        return GB_EXIT_USAGE;
    }
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int k = lookup(tok);
        bool twice = false;
        for (size_t j = 0; k >= 0 && j < *n; j++)
            twice = twice || v[j] == k;
        if (twice) {
            if (err)
                fprintf(err, "gpubench-mpi: --%s: '%s' given twice\n", opt, tok);
            return GB_EXIT_USAGE;
        }
        if (k < 0 || *n == MAX_LIST) {
            if (err)
                fprintf(err, "gpubench-mpi: --%s: %s '%s'\n", opt,
                        k < 0 ? "no such name" : "too many in the list at", tok);
            return GB_EXIT_USAGE;
        }
        v[(*n)++] = k;
    }
    if (*n == 0) {
        if (err)
            fprintf(err, "gpubench-mpi: --%s gives no name\n", opt);
        return GB_EXIT_USAGE;
    }
    return 0;
}

static int dtype_from_name(const char *name)
{
    static const enum gb_dtype ok[] = {GB_F32, GB_I32, GB_F16, GB_BF16};
    for (size_t k = 0; k < sizeof ok / sizeof *ok; k++)
        if (strcmp(name, gb_dtype_name(ok[k])) == 0)
            return (int)ok[k];
    return -1;
}

/* Parses argv on every rank alike; only rank 0 prints. Returns 0 or GB_EXIT_USAGE. */
static int parse(int argc, char **argv, int rank, struct mpi_args *a)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},  {"backend", required_argument, NULL, 'b'},
        {"device", required_argument, NULL, 'd'},  {"size", required_argument, NULL, 's'},
        {"iters", required_argument, NULL, 'n'},   {"warmup", required_argument, NULL, 'w'},
        {"quiet", no_argument, NULL, 'q'},         {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},          {"coll", required_argument, NULL, 'C'},
        {"dtype", required_argument, NULL, 'T'},   {"op", required_argument, NULL, 'O'},
        {"inplace", no_argument, NULL, 'I'},       {"root", required_argument, NULL, 'R'},
        {"buffers", required_argument, NULL, 'B'}, {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->o.iters = 20;
    a->o.warmup = 5;
    const char *sizes = "64KiB,1MiB,16MiB";
    FILE *err = rank == 0 ? stderr : NULL;
    a->collective = argc >= 2 && strcmp(argv[1], "collective") == 0;
    const char *colls = "allreduce,allgather,reducescatter,broadcast,reduce,alltoall,sendrecv";
    const char *dtypes = "f32", *redops = "sum";
    if (argc < 2 || (strcmp(argv[1], "allreduce") != 0 && !a->collective)) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            a->help = true;
            return 0;
        }
        if (err)
            mpi_usage(err);
        return GB_EXIT_USAGE;
    }
    optind = 2;
    opterr = rank == 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "o:b:d:s:n:w:f:qh", longopts, NULL)) != -1) {
        long v;
        switch (c) {
        case 'o':
            /* As gpubench run: standard output is the summary's, and "-" would otherwise be a
             * file of that name in the working folder. */
            if (strcmp(optarg, "-") == 0) {
                if (err)
                    fprintf(err, "gpubench-mpi: -o needs a file name ('-' is not standard "
                                 "output here: the summary is)\n");
                return GB_EXIT_USAGE;
            }
            a->out = optarg;
            break;
        case 'b':
            a->backend = optarg;
            break;
        case 'd':
            a->devices = optarg;
            break;
        case 's':
            sizes = optarg;
            break;
        case 'n':
        case 'w':
            v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < (c == 'n') || v > 1000000) {
                if (err)
                    fprintf(err, "gpubench-mpi: --%s wants a count, got '%s'\n",
                            c == 'n' ? "iters" : "warmup", optarg);
                return GB_EXIT_USAGE;
            }
            *(c == 'n' ? &a->o.iters : &a->o.warmup) = (uint32_t)v;
            break;
        case 'q':
            a->quiet = true;
            break;
        case 'f':
            a->format = optarg;
            if (!gb_writer_fits(gb_writer_find(optarg), false)) {
                if (err) {
                    char names[256];
                    fprintf(err, "gpubench-mpi: no format '%s' (formats: %s)\n", optarg,
                            gb_writer_names(false, names, sizeof names));
                }
                return GB_EXIT_USAGE;
            }
            break;
        case 'C':
        case 'T':
        case 'O':
        case 'I':
        case 'R':
        case 'B':
            if (!a->collective) {
                if (err)
                    fprintf(err, "gpubench-mpi: --coll, --dtype, --op, --inplace, --root and "
                                 "--buffers are options of the collective command\n");
                return GB_EXIT_USAGE;
            }
            if (c == 'C')
                colls = optarg;
            else if (c == 'T')
                dtypes = optarg;
            else if (c == 'O')
                redops = optarg;
            else if (c == 'I')
                a->inplace = true;
            else if (c == 'B' && (strcmp(optarg, "host") == 0 || strcmp(optarg, "device") == 0))
                a->host = strcmp(optarg, "host") == 0;
            else if (c == 'B') {
                if (err)
                    fprintf(err, "gpubench-mpi: --buffers wants device or host, got '%s'\n",
                            optarg);
                return GB_EXIT_USAGE;
            } else {
                v = strtol(optarg, &end, 10);
                if (end == optarg || *end || v < 0 || v > INT32_MAX) {
                    if (err)
                        fprintf(err, "gpubench-mpi: --root wants a rank, got '%s'\n", optarg);
                    return GB_EXIT_USAGE;
                }
                a->root = (int)v;
            }
            break;
        case 'h':
            a->help = true;
            return 0;
        default:
            if (err)
                mpi_usage(err);
            return GB_EXIT_USAGE;
        }
    }
    if (optind != argc) {
        if (err)
            fprintf(err, "gpubench-mpi: unexpected argument '%s'\n", argv[optind]);
        return GB_EXIT_USAGE;
    }
    char buf[1024];
    /* A list cut short could end in another size (4096 as 40): refused whole. */
    if ((size_t)snprintf(buf, sizeof buf, "%s", sizes) >= sizeof buf) {
        if (err)
            fprintf(err, "gpubench-mpi: --size: the list is longer than %zu characters\n",
                    sizeof buf - 1);
        return GB_EXIT_USAGE;
    }
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        uint64_t b;
        if (a->nsizes == MAX_SIZES || gb_parse_size(tok, &b) || b == 0 || b % 4 ||
            b / 4 > INT32_MAX) {
            if (err)
                fprintf(err,
                        "gpubench-mpi: --size wants up to %d sizes, each a positive multiple of "
                        "4 bytes below 8 GiB, got '%s'\n",
                        MAX_SIZES, tok);
            return GB_EXIT_USAGE;
        }
        /* Each size once, as a profile's sweep has it: a second run of a case is no sample. */
        for (size_t j = 0; j < a->nsizes; j++)
            if (a->sizes[j] == b) {
                if (err)
                    fprintf(err, "gpubench-mpi: --size: '%s' given twice\n", tok);
                return GB_EXIT_USAGE;
            }
        a->sizes[a->nsizes++] = b;
    }
    if (a->nsizes == 0) {
        if (err)
            fprintf(err, "gpubench-mpi: --size gives no size\n");
        return GB_EXIT_USAGE;
    }
    int tmp[MAX_LIST];
    if (a->collective) {
        if (parse_list("coll", colls, gb_mpi_coll_from_name, tmp, &a->ncolls, err))
            return GB_EXIT_USAGE;
        for (size_t k = 0; k < a->ncolls; k++)
            a->colls[k] = (enum gb_coll_op)tmp[k];
        if (parse_list("dtype", dtypes, dtype_from_name, tmp, &a->ndtypes, err))
            return GB_EXIT_USAGE;
        for (size_t k = 0; k < a->ndtypes; k++)
            a->dtypes[k] = (enum gb_dtype)tmp[k];
        if (parse_list("op", redops, gb_mpi_coll_redop_from_name, tmp, &a->nredops, err))
            return GB_EXIT_USAGE;
        for (size_t k = 0; k < a->nredops; k++)
            a->redops[k] = (enum gb_coll_redop)tmp[k];
    }
    return 0;
}

/* The device index for local rank `local` among `count` devices. */
static int pick_device(const char *list, int local, int count, char *why, size_t len)
{
    if (!list)
        return count > 0 ? local % count : -1;
    int k = 0;
    for (const char *p = list; *p; k++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || v < 0) {
            snprintf(why, len, "--device wants a comma list of indices, got '%s'", list);
            return -1;
        }
        if (k == local) {
            if (v >= count) {
                snprintf(why, len, "device %ld: the backend has %d", v, count);
                return -1;
            }
            return (int)v;
        }
        p = *end ? end + 1 : end;
    }
    snprintf(why, len, "--device '%s' names no device for local rank %d", list, local);
    return -1;
}

static void fill_meta(struct gb_run_meta *m, int argc, char **argv, const char *profile,
                      size_t ncases)
{
    char command_line[sizeof m->command_line];
    gb__command_line(argc, argv, command_line, sizeof command_line);
    gb__fill_meta(m, NULL, command_line);
    snprintf(m->profile_name, sizeof m->profile_name, "%s", profile);
    m->cases_planned = ncases;
}

/* Whether every rank is fine (*ok) and, when not, the first failing rank's reason into why. */
static int all_ok(bool mine, char *why, size_t len, int *who)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct {
        int bad, rank;
    } me = {!mine, rank}, all;
    if (MPI_Allreduce(&me, &all, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    *who = all.rank;
    if (all.bad && MPI_Bcast(why, (int)len, MPI_CHAR, all.rank, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    return all.bad;
}

/* The collective command's cases, in the order they run: by collective, type, reduction (where
 * it reduces), size. Returns how many (at most max). */
static size_t coll_cases(const struct mpi_args *a, struct gb_mpi_coll_case *cs, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < a->ncolls; i++)
        for (size_t j = 0; j < a->ndtypes; j++)
            for (size_t k = 0; k < (gb_mpi_coll_reduces(a->colls[i]) ? a->nredops : 1); k++)
                for (size_t s = 0; s < a->nsizes && n < max; s++)
                    cs[n++] = (struct gb_mpi_coll_case){.op = a->colls[i],
                                                        .dtype = a->dtypes[j],
                                                        .redop = a->redops[k],
                                                        .bytes = a->sizes[s],
                                                        .inplace = a->inplace,
                                                        .root = a->root,
                                                        .host = a->host};
    return n;
}

/* Rank 0's progress line for case i of n, on stderr: what ran and its status (a message, as
 * run's progress; the results are the summary's). */
static void progress(size_t i, size_t n, const struct gb_result *r)
{
    char size[64] = "";
    for (size_t k = 0; k < r->params.n; k++)
        if (strcmp(r->params.name[k], "size") == 0)
            gb_value_format(&r->params.v[k], size, sizeof size);
    fprintf(stderr, "gpubench-mpi: [%zu/%zu] %s%s%s: %s%s%s\n", i + 1, n, r->case_name,
            r->case_name[0] && size[0] ? " " : "", size, gb_status_name(r->status),
            r->reason[0] ? ": " : "", r->reason);
    fflush(stderr);
}

/* The summary of rs on stdout through the writer `format`, as gpubench run's: for people (text,
 * markdown) a table per suite, for machines every result as a row; then, after a text summary,
 * the tally on stdout (on stderr after any other). Returns 0 or GB_EXIT_USAGE. */
static int summary(const struct gb_results *rs, const char *format, const char *out)
{
    struct gb_doc d;
    const bool people = strcmp(format, "text") == 0 || strcmp(format, "markdown") == 0;
    int rc = 0;
    gb_error_clear();
    if ((people ? gb_summary_doc(rs, &d) : gb_results_metrics_doc(rs, &d)) ||
        gb_write_doc(stdout, format, &d)) {
        fprintf(stderr, "gpubench-mpi: the summary: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
    }
    gb_doc_free(&d);
    size_t n[3] = {0, 0, 0}; /* by enum gb_status: ok, skipped, failed */
    for (size_t i = 0; i < rs->nresults; i++)
        n[rs->results[i].status]++;
    fprintf(strcmp(format, "text") == 0 ? stdout : stderr,
            "%zu ok, %zu skipped, %zu failed; results in %s\n", n[GB_STATUS_OK],
            n[GB_STATUS_SKIPPED], n[GB_STATUS_FAILED], out);
    fflush(stdout);
    return rc;
}

static int run_cmd(int argc, char **argv, const struct mpi_args *a, int rank, int size)
{
    MPI_Comm node;
    int local = 0, nodes = 1, first = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    first = local == 0;
    MPI_Allreduce(&first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    /* This rank's backend and device; with host buffers none: the MPI call alone runs, and a
     * backend's runtime loaded into the rank (PoCL's, even unused) was seen to stall the busy
     * MPI calls for tens of ms, which OSU's ranks, without it, do not see. The rank's "device"
     * is then its host memory, backend "host", index its local rank. */
    char why[1024] = "";
    const struct gb_backend_ops *ops = NULL;
    struct gb_device *dev = NULL;
    struct gb_queue *q = NULL;
    struct gb_device_info host_info;
    memset(&host_info, 0, sizeof host_info);
    int index = -1;
    if (a->host) {
        char name[128] = "";
        gethostname(name, sizeof name - 1);
        snprintf(host_info.name, sizeof host_info.name, "host memory (%s)", name);
        host_info.type = GB_DEVICE_CPU;
        index = local;
    }
    for (size_t b = 0; b < gb_backend_count && !ops && !a->host; b++) {
        const struct gb_backend_ops *o = gb_backends[b];
        if (a->backend && strcmp(o->name, a->backend) != 0)
            continue;
        gb_error_clear();
        if (o->init() != 0) {
            snprintf(why, sizeof why, "%s: %s", o->name, gb_error_msg());
            continue;
        }
        if (o->device_count() == 0) {
            snprintf(why, sizeof why, "%s: no device", o->name);
            o->shutdown();
            continue;
        }
        ops = o;
    }
    if (!ops && !why[0] && !a->host)
        snprintf(why, sizeof why, "no backend called '%s'", a->backend ? a->backend : "?");
    if (ops &&
        (index = pick_device(a->devices, local, ops->device_count(), why, sizeof why)) >= 0) {
        gb_error_clear();
        if (ops->device_open(index, &dev) || ops->queue_create(dev, &q))
            snprintf(why, sizeof why, "%s device %d: %s", ops->name, index, gb_error_msg());
    }
    int who = 0;
    int bad = all_ok(a->host || (dev && q), why, sizeof why, &who);
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "gpubench-mpi: rank %d: %s\n", who, bad < 0 ? "MPI error" : why);
        if (q)
            ops->queue_destroy(q);
        if (dev)
            ops->device_close(dev);
        return GB_EXIT_USAGE;
    }

    /* Rank 0's results: every rank's device, in rank order. */
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    struct gb_device_info *infos = rank == 0 ? calloc((size_t)size, sizeof *infos) : NULL;
    int *indices = rank == 0 ? calloc((size_t)size, sizeof *indices) : NULL;
    int rc = GB_EXIT_OK;
    if (rank == 0 && (!infos || !indices)) {
        fprintf(stderr, "gpubench-mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, GB_EXIT_USAGE);
    }
    const struct gb_device_info *info = dev ? &dev->info : &host_info;
    const char *backend = ops ? ops->name : "host";
    if (MPI_Gather(info, (int)sizeof *info, MPI_BYTE, infos, (int)sizeof *info, MPI_BYTE, 0,
                   MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Gather(&index, 1, MPI_INT, indices, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "gpubench-mpi: MPI_Gather of the devices failed\n");
        MPI_Abort(MPI_COMM_WORLD, GB_EXIT_USAGE);
    }
    char out[2048] = "";
    static struct gb_mpi_coll_case cases[MAX_LIST * MAX_LIST * 2 * MAX_SIZES];
    const size_t ncases =
        a->collective ? coll_cases(a, cases, sizeof cases / sizeof *cases) : a->nsizes;
    const char *profile = a->collective ? "mpi-collective" : "mpi-allreduce";
    if (rank == 0) {
        fill_meta(&rs.run, argc, argv, profile, ncases);
        rs.run.interrupted = true; /* until the last case is in */
        for (int k = 0; k < size; k++)
            if (gb_results_add_device(&rs, backend, indices[k], &infos[k], NULL))
                MPI_Abort(MPI_COMM_WORLD, GB_EXIT_USAGE);
        if (a->out) {
            snprintf(out, sizeof out, "%s", a->out);
        } else {
            char stamp[32];
            time_t t = time(NULL);
            struct tm tm;
            gmtime_r(&t, &tm);
            strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
            if (mkdir("results", 0777) != 0 && errno != EEXIST)
                fprintf(stderr, "gpubench-mpi: cannot create results/: %s\n", strerror(errno));
            snprintf(out, sizeof out, "results/%s-%s.json", profile, stamp);
        }
        if (!a->quiet)
            fprintf(stderr,
                    "gpubench-mpi: %s over %d rank%s on %d node%s, %s, %u iterations%s%s%s -> "
                    "%s\n",
                    a->collective ? "collectives" : "all-reduce", size, size == 1 ? "" : "s", nodes,
                    nodes == 1 ? "" : "s", backend, a->o.iters,
                    a->collective && a->inplace ? ", in place" : "", a->collective ? ", " : "",
                    !a->collective ? ""
                    : a->host      ? "host buffers"
                                   : "device buffers",
                    out);
    }
    free(infos);
    free(indices);

    const struct gb_mpi_coll_opts co = {.warmup = a->o.warmup, .iters = a->o.iters};
    for (size_t i = 0; i < ncases; i++) {
        struct gb_result r;
        gb_error_clear();
        if (a->collective ? gb_mpi_collective(ops, dev, q, MPI_COMM_WORLD, &cases[i], &co, &r)
                          : gb_mpi_allreduce(ops, dev, q, MPI_COMM_WORLD, a->sizes[i], &a->o, &r)) {
            fprintf(stderr, "gpubench-mpi: rank %d: %s\n", rank, gb_error_msg());
            MPI_Abort(MPI_COMM_WORLD, GB_EXIT_USAGE);
        }
        if (rank != 0)
            continue;
        if (r.status == GB_STATUS_FAILED)
            rc = GB_EXIT_CASE_FAILED;
        if (!a->quiet)
            progress(i, ncases, &r);
        if (gb_results_add(&rs, &r)) {
            fprintf(stderr, "gpubench-mpi: %s\n", gb_error_msg());
            free(r.samples);
            MPI_Abort(MPI_COMM_WORLD, GB_EXIT_USAGE);
        }
    }
    if (rank == 0) {
        gb__utc_now(rs.run.end_utc, sizeof rs.run.end_utc);
        rs.run.interrupted = false;
        if (gb_results_write(&rs, out)) {
            fprintf(stderr, "gpubench-mpi: cannot write %s: %s\n", out, gb_error_msg());
            rc = GB_EXIT_USAGE;
        }
        if (!a->quiet && summary(&rs, a->format ? a->format : "text", out) && rc == GB_EXIT_OK)
            rc = GB_EXIT_USAGE;
        gb_results_free(&rs);
    }
    if (ops) {
        ops->queue_destroy(q);
        ops->device_close(dev);
        ops->shutdown();
    }
    return rc;
}

/* Whether the command line asks for host buffers (--buffers host or --buffers=host), read before
 * MPI starts: those ranks load no backend, so they hold no thread of ours beside the main one. */
static bool wants_host_buffers(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--buffers=host") == 0 ||
            (strcmp(argv[i], "--buffers") == 0 && i + 1 < argc && strcmp(argv[i + 1], "host") == 0))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, size = 1;
    /* A backend's runtime starts threads of its own, which only the main thread lets call MPI
     * (funneled); with host buffers the rank is single-threaded and asks for no more, as OSU's
     * ranks (MPI_Init) do: Open MPI's collectives of a few us were seen some 10 % slower funneled. */
    const int level = wants_host_buffers(argc, argv) ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED;
    if (MPI_Init_thread(&argc, &argv, level, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "gpubench-mpi: MPI_Init failed\n");
        return GB_EXIT_USAGE;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct mpi_args a;
    int rc = parse(argc, argv, rank, &a);
    /* An output that cannot be written (a folder, a missing folder, not a regular file) is a
     * usage error before the run, not after it: rank 0 writes it and tells the others. */
    if (!rc && !a.help && a.out) {
        static const char *const names[1] = {"--output"};
        const char *outs[1] = {a.out};
        if (rank == 0)
            rc = gb__check_outputs("mpi", outs, names, 1, NULL, 0);
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (!rc && a.help) {
        if (rank == 0)
            mpi_usage(stdout);
    } else if (!rc) {
        rc = run_cmd(argc, argv, &a, rank, size);
    }
    /* The exit status of rank 0 is the job's (mpirun returns the first non-zero status). */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
