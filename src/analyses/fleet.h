/* gpubench — the fleet view: the same profile's results from many nodes side by side, and the
 * nodes that stand out.
 *
 * Every results file is one node's run (host from the file; when two files name the same host, the
 * file name tells them apart). A case is matched across files by its identity (merge.h: suite,
 * case, backend, device name, params); a node with several devices of that name gives one member
 * per device ("host/1"). Per case the fleet's figure is the median of the members' headline values
 * and its spread the scaled median absolute deviation, 1.4826 x MAD (MAD = median |x_i - median|,
 * a consistent estimate of the standard deviation for normal data that one bad node cannot move:
 * its breakdown point is 50%).
 *
 * A member is an outlier in a case when its distance from the fleet's center is beyond the case's
 * run-to-run noise, in log performance (d = ln x - median ln x, so that 2x slower and 2x faster
 * are as far), both
 *   |d| > L                             the noise: where expectations (opts.noise or
 *                                        opts.expect) have the case from 3 or more reference runs,
 *                                        L = max(ln(max/min) + ln(1 + min_deviation),
 *                                        k spread): what the runs of one build showed (a node no
 *                                        further out than a reference run is not an outlier) or
 *                                        k of their robust spreads (not widened for few runs as
 *                                        gb_mad_cut would: 12.7 spreads at 9 runs, 24x on this
 *                                        VM, would catch no node at 0.5x); else the fleet's own spread,
 *                                        L = k x max(s_c, s_fleet), s_c = b_n 1.4826 MAD of the
 *                                        case's ln perf (the modified z-score of B. Iglewicz and
 *                                        D. C. Hoaglin, "How to Detect and Handle Outliers", ASQC
 *                                        1993, k = 3.5, with Croux & Rousseeuw's small-sample
 *                                        b_n), floored at s_fleet, the median of s_c over the
 *                                        fleet's judged cases: the MAD of 4 nodes says little of
 *                                        one case (4 runs of one build on a shared VM flagged
 *                                        every node at k = 3.5), that of a hundred cases much
 *   |d| > ln(1 + min_deviation)         (the floor: on identical nodes the MAD can be tiny or 0,
 *                                        and a 0.5% difference is not worth a gate)
 * in either direction: "slow" or "fast" by the metric's `better`. Where the expectations
 * calibrate the case (L from its reference runs), such a member is an outlier in it ("slow",
 * "fast"); elsewhere it only "deviates": listed, named, but no outlier by itself, for the fleet's
 * spread of one case is no run-to-run noise (8 A/A runs of one 2-core VM differ by up to 2-6x
 * in single cases, heavy-tailed: 50 of 50 nodes flagged at k = 3.5). A member whose case failed
 * while it ran ok elsewhere is flagged "failed". Cases that fewer than 3 members ran ok are
 * listed, not judged (with two, the median sits between them).
 *
 * Without calibrated noise a member is judged as a whole instead, by its node shift
 *   S_m = median over its judged uncalibrated cases of ln(value / case median) (inverted for a
 *         lower-is-better metric), from GB_FLEET_SHIFT_MIN_CASES (5) such cases (fewer: not
 *         judged, said in the notes), over 3 or more members with a shift;
 * it is LOW (an outlier) when
 *   S_m < median_m S_m - max(k x 1.4826 x MAD_m S_m, ln(GB_FLEET_SHIFT_FLOOR)), k = 3.5:
 * the median over cases takes out the per-case tails (a case 6x off moves it by one rank), and
 * what is left is how whole runs move: on this VM by at most ~16% between A/A runs (the median
 * over cases of the log ratio of two runs), hence the floor of 25% (ln 1.25), under the 30% of
 * a copy at 0.7x. A node is an outlier when any of its members is (a case flag or LOW);
 * `gpubench fleet` exits 3 then.
 *
 * Memory: files are read one at a time and freed; what stays is one (member, value) pair of 16
 * bytes per case per member, the case and member tables and one short record per file: O(cases x
 * members), never the samples; the node shifts take 8 more bytes per figure while they are
 * computed. Time: linear in the input bytes (JSON parsing dominates) plus a sort per case,
 * O(cases x members log members).
 */
#ifndef GB_FLEET_H
#define GB_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/merge.h"
#include "results/results.h"

struct gb_expect;
struct gb_fleet_opts {
    double k;             /* MAD multiples (the modified z-score's threshold); default 3.5 */
    double min_deviation; /* relative distance from the median an outlier also needs; 0.05 */
    const char *suites;   /* comma list of suites; NULL: all */
    /* Expectations (analyses/expect.h; NULL: none): a member below its device model's expected
     * band (check's rule, default tolerances) is LOW even where the whole fleet is as slow, and
     * where fewer than 3 members ran a case. Must outlive the fleet. */
    const struct gb_expect *expect;
    /* Expectations read for the run-to-run noise only (no LOW): `gpubench fleet` passes the
     * default results/reference/expectations.json when present. NULL: none. */
    const struct gb_expect *noise;
};

void gb_fleet_opts_default(struct gb_fleet_opts *o);

enum gb_fleet_flag {
    GB_FLEET_NORMAL,
    GB_FLEET_SLOW,     /* outlier on the bad side */
    GB_FLEET_FAST,     /* outlier on the good side */
    GB_FLEET_FAILED,   /* failed here, ok on another member */
    GB_FLEET_UNJUDGED, /* failed everywhere, or the case has fewer than 3 members ok */
    GB_FLEET_LOW,      /* below its model's expected band (opts.expect), not a fleet outlier */
    GB_FLEET_DEVIATES, /* beyond the fleet's spread in an uncalibrated case: listed, no outlier */
};

/* The fewest judged uncalibrated cases a member's node shift needs (a median of fewer is one
 * case's noise), and the floor of the shift's limit, as a ratio (whole A/A runs of a shared
 * 2-core VM move by up to ~16%; fleet.h's head). */
#define GB_FLEET_SHIFT_MIN_CASES 5
#define GB_FLEET_SHIFT_FLOOR 1.25

/* "", "SLOW", "FAST", "FAILED", "", "LOW", "deviates" */
const char *gb_fleet_flag_name(enum gb_fleet_flag f);

/* One member's figure of one case. */
struct gb_fleet_obs {
    uint32_t member;
    int8_t status; /* enum gb_status: ok or failed (skipped cases are not kept) */
    int8_t flag;   /* enum gb_fleet_flag, set by gb_fleet_finish */
    double value;  /* the headline value; NaN when failed */
};

struct gb_fleet_case {
    char *suite, *case_name, *device, *params, *unit, *metric;
    enum gb_better better;
    struct gb_fleet_obs *obs; /* after gb_fleet_finish: failed first, then slowest to fastest */
    size_t nobs, cap;
    size_t nok, nfailed, noutliers;
    size_t ndeviating;            /* members that deviate (GB_FLEET_DEVIATES) */
    double median, mad, min, max; /* over the ok members; NaN when none */
    double limit;                 /* L above, as a relative distance e^L - 1 (NaN: not judged) */
    bool limit_expect;            /* L came from the expectations' reference runs, not the fleet */
    const struct gb_expect_case *expect; /* its model's expectation (opts.expect), or NULL */
    bool measured;                       /* unit, metric and better are those of an ok value */
    size_t left_out;   /* ok values in another unit, metric or direction than the case's first */
    char left_why[96]; /* the first of those: "unit MB/s where the case is GB/s" */
};

struct gb_fleet_file {
    char *path;
    char *host;
    char start_utc[32];
    bool interrupted;
    bool host_shared; /* another file names the same host: members are labelled by file name */
};

struct gb_fleet_member {
    uint32_t file;
    char slot[64];         /* merge.h's slot: "" or the device's position among those of its name */
    size_t nflagged;       /* cases in which it is an outlier (slow, fast or failed) */
    size_t worst_case;     /* the flagged case farthest from its median (valid when nflagged) */
    double worst;          /* its deviation value / median - 1 (NaN for failed) */
    size_t ndeviating;     /* uncalibrated cases in which it deviates (listed, not flagged) */
    size_t worst_dev_case; /* the deviating case farthest from its median (when ndeviating) */
    double worst_dev;      /* its value / median - 1 */
    double shift;          /* S_m above, as a ratio e^S_m (NaN: not judged) */
    size_t shift_cases;    /* the judged uncalibrated cases behind it */
    bool shift_low;        /* LOW by its shift: an outlier as a whole */
    bool outlier;          /* flagged in a case (nflagged) or shift_low */
    /* What the driver said of the member's device, its health items that are not OK nor
     * UNKNOWN ("pcie_link FAIL: PCIe link trained down: ..."; "" none or not read): the cause a
     * slow member's row names. */
    char health[400];
    bool health_read;
};

struct gb_fleet {
    struct gb_fleet_opts opts;
    struct gb_fleet_file *files;
    size_t nfiles, files_cap;
    struct gb_fleet_member *members;
    size_t nmembers, members_cap;
    struct gb_strtab keys; /* case key -> index into cases */
    struct gb_fleet_case *cases;
    size_t ncases, cases_cap;
    size_t nobs;            /* over every case */
    size_t unjudged;        /* cases with fewer than 3 ok members */
    size_t flagged_cases;   /* cases with an outlier */
    size_t flagged_members; /* members that are an outlier (a case flag or shift_low) */
    size_t flagged_nodes;   /* files with such a member */
    size_t deviating;       /* member-case figures that deviate, uncalibrated (not flagged) */
    size_t shift_members;   /* members with a node shift (GB_FLEET_SHIFT_MIN_CASES cases) */
    size_t shift_short;     /* members with some uncalibrated cases but too few for a shift */
    double shift_median;    /* the median node shift, as a ratio (NaN: none judged) */
    double shift_limit;     /* how far below it a member is LOW, as a ratio (e^L; NaN: none) */
    char first_sha[65], first_version[32];
    size_t other_sha, other_version, interrupted, duplicates;
    size_t *rank;   /* after gb_fleet_finish: the members, most severe first (outliers first;
                       most cases flagged, a LOW shift, the lowest shift, then the farthest worst
                       case; failures first), the rest in order */
    size_t skipped; /* files the caller skipped (unreadable, not results): gb_fleet_skip */
    double pooled;  /* s_fleet above: the typical case's spread of ln perf (~ relative) */
    char skips[1024];
    char notes[4096];
    char left_out[2048]; /* the notes' lines on values left out of a case (for stderr) */
};

/* Starts an empty fleet with options o (copied; o->suites must outlive f). */
void gb_fleet_init(struct gb_fleet *f, const struct gb_fleet_opts *o);
/* Reads one node's results file and keeps its headline values (samples are freed before it
 * returns). Returns 0, the reader's GB_EIO / GB_ESCHEMA with its message, GB_ENOMEM, or
 * GB_EOVERFLOW past 2^32 members. */
int gb_fleet_add_file(struct gb_fleet *f, const char *path);
/* Records that `path` was skipped for `why` (the caller's note: one unreadable or foreign file
 * in a folder is not the end of the fleet); it is named in the notes. */
void gb_fleet_skip(struct gb_fleet *f, const char *path, const char *why);
/* Computes each case's median, MAD and flags, and each member's count. Returns 0, GB_EINVAL (no
 * file), GB_ENOMEM. */
int gb_fleet_finish(struct gb_fleet *f);
void gb_fleet_free(struct gb_fleet *f);

/* The label of member m: host (or file name when the host is shared), "/slot" when set. */
char *gb_fleet_member_label(const struct gb_fleet *f, size_t m, char *buf, size_t len);

#endif
