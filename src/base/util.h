/* gpubench — small string and array helpers shared across the tree.
 *
 * Each of these was written out several times before (a line appended to a fixed notes buffer,
 * an array doubled by realloc, a list searched by a string key and extended when the key is
 * new); one tested copy is easier to trust than five. None of them calls exit() or sets the
 * error detail: callers say what failed in their own terms.
 */
#ifndef GB_UTIL_H
#define GB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Appends printf-style text to the NUL-terminated string in buf (cap bytes in all, terminator
 * included), truncating what does not fit; buf stays NUL-terminated. Nothing is written when buf
 * is already full (strlen(buf) + 1 >= cap), so a long run of appends cannot overrun it, unlike
 * `l += snprintf(buf + l, cap - l, ...)`, whose l passes cap once an append is truncated. */
void gb_appendf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes the lines of `text` to f, each one wider than `width` characters (0: none is)
 * wrapped at its words, the lines it goes on to indented two spaces beyond its own indent; a
 * word wider than a line stays whole. For text that is lines, not a document (a note on
 * stderr). */
void gb_put_wrapped(FILE *f, const char *text, int width);
void gb_vappendf(char *buf, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Appends one line, the printf-style text and '\n', to the NUL-terminated string in buf (cap
 * bytes). The text is truncated so that its line break always fits; when not even one character
 * and the break fit (strlen(buf) + 2 >= cap), nothing is added. For notes and findings that are
 * collected line by line into a fixed buffer and printed as a block. */
/* Cuts s (NUL-terminated) back to its last whole UTF-8 character: a multi-byte sequence that a
 * fixed-size copy cut short is removed, so that a truncated text stays valid UTF-8. */
void gb_utf8_trim(char *s);

void gb_append_line(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Returns an array with room for at least `need` (> 0) elements of `size` bytes: `items` itself
 * when *cap >= need; else `items` moved by realloc to max(need, 2 * *cap, 16) elements, with *cap
 * updated. Doubling keeps n appends O(n) in all. Returns NULL when the byte count would overflow
 * size_t or memory runs out; then items and *cap are left as they were (items still valid and
 * still the caller's). The usual call:
 *     struct x *g = gb_grow(a->items, &a->cap, a->n + 1, sizeof *g);
 *     if (!g) return GB_FAIL(GB_ENOMEM, ...);
 *     a->items = g;  */
void *gb_grow(void *items, size_t *cap, size_t need, size_t size);

/* Finds, or adds, the element keyed `key` in an array of *n elements of `size` bytes (at most
 * max), whose key is a NUL-terminated char array of key_cap bytes at byte offset key_off in each
 * element (offsetof(struct x, name), sizeof ((struct x *)0)->name). Returns the index of the
 * first element whose key equals `key` (strcmp) with *added false; else, when *n < max, zeroes
 * element *n, copies key into it (truncated to key_cap - 1 characters), increments *n and
 * returns the new index with *added true; else (the array is full) returns max with *added
 * false. The caller fills the rest of a new element. Linear: for the tens of keys of a report
 * or a comparison, not for large tables. */
size_t gb_find_or_add_str(void *items, size_t *n, size_t max, size_t size, size_t key_off,
                          size_t key_cap, const char *key, bool *added);

/* The first len - 1 bytes of the file at path (all of it when shorter) into buf, NUL-terminated;
 * false (buf untouched) when it cannot be opened. For a file's header or a /proc file. */
bool gb_read_head(const char *path, char *buf, size_t len);

/* The host's last-level cache in bytes: the largest `size` among the caches of the highest
 * `level` listed under cpu_dir/cache/index* (cpu_dir: "/sys/devices/system/cpu/cpu0" on Linux;
 * sizes as sysfs writes them, "32768K", "2M" or bytes). 0 when none can be read. */
uint64_t gb_host_llc_bytes(const char *cpu_dir);

/* The host's maximum core clock in MHz, for a CPU device whose driver reports none (Intel's
 * OpenCL CPU runtime reports CL_DEVICE_MAX_CLOCK_FREQUENCY 0): cpu_dir/cpufreq/cpuinfo_max_freq
 * (kHz) where cpufreq exists (cpu_dir: "/sys/devices/system/cpu/cpu0"), else the largest
 * "cpu MHz" line of `cpuinfo` ("/proc/cpuinfo": the current clock of each CPU, which the kernel
 * reports at the nominal clock where it cannot read it). *source, when source is non-NULL,
 * becomes "cpufreq" or "cpuinfo" (the file the figure came from). 0 when neither can be read. */
uint32_t gb_host_cpu_mhz(const char *cpu_dir, const char *cpuinfo, const char **source);

/* The host's physical cores: the distinct (physical_package_id, core_id) pairs among
 * cpu_root/cpuN/topology (cpu_root: "/sys/devices/system/cpu" on Linux), so SMT threads of one
 * core count once. 0 when none can be read. */
unsigned gb_host_physical_cores(const char *cpu_root);

/* Creates the folder `path` and any missing parents, like `mkdir -p`, each with `mode` (before
 * the umask); folders that exist already are fine. Returns 0, or -1 with errno set (the first
 * mkdir that failed; ENAMETOOLONG for a path of 4096 bytes or more). */
int gb_mkdir_p(const char *path, unsigned mode);

/* Writes s (NULL: nothing) escaped for XML and HTML text and attribute values (& < > " '). Bytes
 * that are not valid UTF-8, and control characters XML 1.0 forbids, become '?': a JUnit file or a
 * report page must parse whatever a device calls itself. */
void gb_fputs_xml(FILE *f, const char *s);

/* Writes s (NULL: nothing) as the text of one Markdown table cell: the characters Markdown
 * gives a meaning to (| \ ` * _ [ ]) are backslash-escaped, & < > become entities (so a name
 * never reaches a Markdown renderer as raw HTML), line breaks and tabs become spaces and other
 * control characters '?'. The one Markdown escaper: compare's and report's tables use it. */
void gb_fputs_md(FILE *f, const char *s);

/* The longest path gpubench handles (Linux's PATH_MAX, with its NUL). */
#define GB_PATH_MAX 4096
/* A buffer for a path with a short name joined to it ("DIR/nights/NAME.json",
 * "FILE.gbtmp-PID-XXXXXX"), or for a message that quotes one path. */
#define GB_PATH_JOIN (GB_PATH_MAX + 304)

/* Writes s as one CSV field (RFC 4180): quoted when it holds a comma or a quote, a quote
 * doubled; control characters, DEL and the UTF-8 C1 controls become '?' (a field never breaks
 * its row). The one CSV field writer: history's CSV and the csv writer use it. */
void gb_fputs_csv(FILE *f, const char *s);

/* The 16 bytes u of a UUID as 8-4-4-4-12 lowercase hex digits ("1b2c...-..."), into buf[len]
 * (37 bytes hold it); "" when u is all zero (a device that gives none). Returns buf. */
char *gb_format_uuid(const unsigned char u[16], char *buf, size_t len);
/* What an output path is meant to be, for gb_output_refusal. */
enum gb_output_kind {
    GB_OUTPUT_FILE, /* a regular file, created or replaced */
    GB_OUTPUT_DIR,  /* a folder, created when missing */
};

/* A text table's column width: w widened to the length of cell, at most cap (a longer cell then
 * pushes its row's later columns right); w itself is kept when it is already wider. */
int gb_col_width(int w, const char *cell, int cap);

/* Marks in dup[0..n) the paths that name a file already named earlier in paths[0..n) (same
 * device and inode: the same file given twice, or by a link, or also through its folder), so
 * that a command reads each file once. A path that cannot be stat'ed is never a duplicate.
 * Returns how many are marked; O(n log n). Out of memory, none is marked. */
size_t gb_files_duplicates(const char *const *paths, size_t n, bool *dup);

/* Whether p starts the UTF-8 form of a C1 control, U+0080..U+009F (0xC2 0x80..0x9F; U+009B is
 * a CSI): the two bytes every text writer below replaces with one '?'. */
/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014): advances *s by the golden-ratio increment and returns its finalised value; a fixed,
 * seedable stream of 64-bit values, the suites' only randomness for their inputs and traces. */
static inline uint64_t gb_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline bool gb_is_c1(const unsigned char *p)
{
    return p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F;
}

/* A stream for text meant for a terminal, from strings that files supplied (device names,
 * reasons, labels): it writes to `to` with every byte a terminal would act on replaced by '?':
 * C0 controls but newline and tab (ESC starts an escape sequence, CR rewrites a line, BEL
 * rings), DEL, and the UTF-8 forms of the C1 controls U+0080..U+009F (U+009B is a CSI).
 * fclose() flushes it and leaves `to` open. NULL when out of memory (then write to `to`). */
FILE *gb_term_stream(FILE *to);
/* The same replacement in the string s, in place (its length is kept). */
void gb_term_clean(char *s);
/* Makes stderr such a stream for the rest of the process (every message, whatever text of a
 * file or option it quotes), keeping the original in gb_raw_stderr for a progress line that
 * writes its own controls (and cleans what it quotes). Line-buffered. Called once by main. */
void gb_term_protect_stderr(void);
extern FILE *gb_raw_stderr; /* NULL until gb_term_protect_stderr */

/* Whether `out` may be written as an output of a command whose inputs are inputs[0..ninputs)
 * (NULL entries skipped; "-" is stdin/stdout and never clashes). Returns 0 when it may; else -1
 * with the reason for the user in why[cap] ("it is the input base.json", "it is a device node",
 * "it is a folder; a file is meant"). Refused:
 *  - out is the same file as an input: same st_dev and st_ino (hard links and symbolic links
 *    included), or the same path once both are resolved with realpath;
 *  - for GB_OUTPUT_FILE, out lies inside an input that is a folder (a baseline's nights, a
 *    calibration's runs), at any depth, after resolving links;
 *  - for GB_OUTPUT_FILE, out (after following links) exists and is not a regular file: a
 *    character or block device (/dev/null), a FIFO, a socket, or a folder;
 *  - for GB_OUTPUT_DIR, out exists and is not a folder;
 *  - out is a symbolic link that points nowhere (a dangling link would otherwise be replaced).
 * A symbolic link to an acceptable file is accepted: writers write through it (to the file it
 * names), never replace the link itself (gb_output_resolve). "-" as out is accepted for
 * GB_OUTPUT_FILE (stdout). */
int gb_output_refusal(const char *out, enum gb_output_kind kind, const char *const *inputs,
                      size_t ninputs, char *why, size_t cap);

/* The path a writer that replaces `path` by renaming a temporary file over it must use so that a
 * symbolic link at `path` is written through, not replaced: the link's final target (realpath)
 * into buf[cap] when path is a symbolic link, else path itself. Returns buf, or NULL with errno
 * (a dangling link: ENOENT; a result that does not fit: ENAMETOOLONG). */
char *gb_output_resolve(const char *path, char *buf, size_t cap);

/* Creates the temporary file a writer fills before renaming it over `path` (which should come
 * from gb_output_resolve): "<path>.gbtmp-<pid>-XXXXXX" beside it, mode 0644 (before the umask),
 * O_CLOEXEC. First removes the stale temporaries of that pattern beside path whose process no
 * longer runs (kill(pid, 0) fails with ESRCH): what a write killed by SIGKILL, or cut short by a
 * crash, left behind. Another live process's temporaries are kept. Returns the open descriptor
 * with the name in tmp[cap], or -1 with errno (ENAMETOOLONG when the name does not fit). The
 * caller unlinks tmp when its write fails. */
int gb_tmp_create(const char *path, char *tmp, size_t cap);

/* The edit distance (Damerau-Levenshtein's optimal string alignment: insertions, deletions,
 * substitutions and swaps of two neighbours, one each; ASCII case ignored) between a and b, counting at most 64 bytes of each (longer texts: the first 64). */
size_t gb_edit_distance(const char *a, const char *b);

/* The name among names[0..n) closest to `given` by gb_edit_distance, for a "did you mean"
 * (NULL names are skipped): the first of the nearest, when its distance is at most a third of
 * its length (at least 1, at most 3) and it differs from given; NULL when none is that near. A
 * name that starts with given (an abbreviation) counts as near. */
const char *gb_did_you_mean(const char *given, const char *const *names, size_t n);

/* gb_did_you_mean over the words of a list written for people ("name, backends or devices":
 * runs of letters, digits, '_', '.' and '-', less "or" and "and"): the nearest word copied into
 * buf[len] and returned, or NULL. */
const char *gb_did_you_mean_list(const char *given, const char *list, char *buf, size_t len);

#endif
