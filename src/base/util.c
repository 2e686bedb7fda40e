/* gpubench — small string and array helpers (see util.h). */
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

void gb_vappendf(char *buf, size_t cap, const char *fmt, va_list ap)
{
    if (cap == 0)
        return;
    const size_t l = strlen(buf);
    if (l + 1 >= cap)
        return;
    vsnprintf(buf + l, cap - l, fmt, ap);
}

void gb_appendf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gb_vappendf(buf, cap, fmt, ap);
    va_end(ap);
}

void gb_utf8_trim(char *s)
{
    size_t n = strlen(s), i = n;
    /* Back over continuation bytes (10xxxxxx) to the lead byte of the last sequence. */
    while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0)
        return;
    const unsigned char lead = (unsigned char)s[i - 1];
    const size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (n - (i - 1) < want)
        s[i - 1] = '\0';
}

void gb_append_line(char *buf, size_t cap, const char *fmt, ...)
{
    if (cap == 0)
        return;
    size_t l = strlen(buf);
    if (l + 2 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    /* One byte fewer than the room left, so the line break below always fits. */
    vsnprintf(buf + l, cap - l - 1, fmt, ap);
    va_end(ap);
    l = strlen(buf);
    buf[l] = '\n';
    buf[l + 1] = '\0';
}

void *gb_grow(void *items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return items;
    size_t ncap = *cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * *cap;
    if (ncap < 16)
        ncap = 16;
    if (ncap < need)
        ncap = need;
    if (size == 0 || need > SIZE_MAX / size)
        return NULL;
    if (ncap > SIZE_MAX / size)
        ncap = SIZE_MAX / size; /* less than double, but still room for need */
    void *g = realloc(items, ncap * size);
    if (!g)
        return NULL;
    *cap = ncap;
    return g;
}

size_t gb_find_or_add_str(void *items, size_t *n, size_t max, size_t size, size_t key_off,
                          size_t key_cap, const char *key, bool *added)
{
    char *base = items;
    *added = false;
    for (size_t i = 0; i < *n; i++)
        if (strcmp(base + i * size + key_off, key) == 0)
            return i;
    if (*n >= max)
        return max;
    char *e = base + *n * size;
    memset(e, 0, size);
    snprintf(e + key_off, key_cap, "%s", key);
    *added = true;
    return (*n)++;
}

bool gb_read_head(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return true;
}

/* The first line of dir/name as text; false when it cannot be read. */
static bool read_line(const char *dir, const char *name, char *buf, size_t len)
{
    char p[GB_PATH_JOIN];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok;
}

uint64_t gb_host_llc_bytes(const char *cpu_dir)
{
    uint64_t best = 0;
    long best_level = 0;
    for (int i = 0; i < 16; i++) {
        char dir[GB_PATH_MAX], line[64];
        snprintf(dir, sizeof dir, "%s/cache/index%d", cpu_dir, i);
        if (!read_line(dir, "level", line, sizeof line))
            continue;
        long level = strtol(line, NULL, 10);
        if (!read_line(dir, "size", line, sizeof line))
            continue;
        char *end;
        unsigned long long v = strtoull(line, &end, 10);
        uint64_t bytes = *end == 'K'   ? (uint64_t)v << 10
                         : *end == 'M' ? (uint64_t)v << 20
                         : *end == 'G' ? (uint64_t)v << 30
                                       : (uint64_t)v;
        if (level > best_level || (level == best_level && bytes > best)) {
            best_level = level;
            best = bytes;
        }
    }
    return best;
}

uint32_t gb_host_cpu_mhz(const char *cpu_dir, const char *cpuinfo, const char **source)
{
    char dir[GB_PATH_MAX], line[256];
    snprintf(dir, sizeof dir, "%s/cpufreq", cpu_dir);
    if (read_line(dir, "cpuinfo_max_freq", line, sizeof line)) {
        unsigned long long khz = strtoull(line, NULL, 10);
        if (khz >= 1000 && khz / 1000 <= UINT32_MAX) {
            if (source)
                *source = "cpufreq";
            return (uint32_t)(khz / 1000);
        }
    }
    FILE *f = fopen(cpuinfo, "r");
    if (!f)
        return 0;
    double best = 0.0;
    while (fgets(line, sizeof line, f)) {
        double mhz;
        if (strncmp(line, "cpu MHz", 7) == 0 && sscanf(line, "cpu MHz%*[ \t]: %lf", &mhz) == 1 &&
            mhz > best && mhz < 1e6)
            best = mhz;
    }
    fclose(f);
    if (best >= 1.0 && source)
        *source = "cpuinfo";
    return (uint32_t)(best + 0.5);
}

unsigned gb_host_physical_cores(const char *cpu_root)
{
    enum { MAXCPU = 1024 };
    static long seen[MAXCPU][2];
    unsigned n = 0;
    int misses = 0;
    for (int c = 0; c < MAXCPU && misses < 64; c++) {
        char dir[GB_PATH_MAX], line[64];
        snprintf(dir, sizeof dir, "%s/cpu%d/topology", cpu_root, c);
        if (!read_line(dir, "core_id", line, sizeof line)) {
            misses++; /* offline or absent CPUs leave gaps */
            continue;
        }
        long core = strtol(line, NULL, 10), pkg = 0;
        if (read_line(dir, "physical_package_id", line, sizeof line))
            pkg = strtol(line, NULL, 10);
        bool dup = false;
        for (unsigned k = 0; k < n && !dup; k++)
            dup = seen[k][0] == pkg && seen[k][1] == core;
        if (!dup && n < MAXCPU) {
            seen[n][0] = pkg;
            seen[n][1] = core;
            n++;
        }
    }
    return n;
}

int gb_mkdir_p(const char *path, unsigned mode)
{
    char p[GB_PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* Each parent in turn, from the root down; a leading '/' is not a folder to create. */
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return mkdir(p, (mode_t)mode) != 0 && errno != EEXIST ? -1 : 0;
}

/* The entity that stands for ch in XML and HTML text (& < >) and, with `quotes`, in attribute
 * values (" '); NULL for any other character. */
static const char *entity(unsigned char ch, bool quotes)
{
    switch (ch) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return quotes ? "&quot;" : NULL;
    case '\'':
        return quotes ? "&apos;" : NULL;
    }
    return NULL;
}

/* See util.h. */
void gb_fputs_xml(FILE *f, const char *s)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    while (*u) {
        unsigned char ch = *u;
        if (ch < 0x80) {
            const char *e = entity(ch, true);
            if (e)
                fputs(e, f);
            else
                fputc((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7F ? '?'
                                                                                          : ch,
                      f);
            u++;
            continue;
        }
        if (gb_is_c1(u)) {
            fputc('?', f);
            u += 2;
            continue;
        }
        size_t len = ch >= 0xF0 && ch < 0xF5 ? 4 : ch >= 0xE0 ? 3 : ch >= 0xC2 && ch < 0xE0 ? 2 : 0;
        bool ok = len > 0 && ch < 0xF5;
        for (size_t k = 1; ok && k < len; k++)
            ok = (u[k] & 0xC0) == 0x80;
        if (ok) {
            fwrite(u, 1, len, f);
            u += len;
        } else {
            fputc('?', f);
            u++;
        }
    }
}

void gb_fputs_md(FILE *f, const char *s)
{
    for (const unsigned char *u = (const unsigned char *)(s ? s : ""); *u; u++) {
        if (gb_is_c1(u)) {
            fputc('?', f);
            u++;
            continue;
        }
        const char *e = entity(*u, false);
        if (e) {
            fputs(e, f);
            continue;
        }
        switch (*u) {
        case '|':
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[':
        case ']':
            fputc('\\', f);
            fputc(*u, f);
            break;
        case '\n':
        case '\r':
        case '\t':
            fputc(' ', f);
            break;
        default:
            fputc(*u < 0x20 || *u == 0x7f ? '?' : *u, f);
        }
    }
}

char *gb_format_uuid(const unsigned char u[16], char *buf, size_t len)
{
    if (!len)
        return buf;
    buf[0] = '\0';
    bool any = false;
    for (int i = 0; i < 16; i++)
        any |= u[i] != 0;
    if (!any)
        return buf;
    for (int i = 0; i < 16; i++)
        gb_appendf(buf, len, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
    return buf;
}
/* Whether a and b name the same existing file: same device and inode, or the same resolved
 * path. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
        return true;
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

struct file_key {
    dev_t dev;
    ino_t ino;
    size_t i;
};

static int cmp_file_key(const void *a, const void *b)
{
    const struct file_key *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

size_t gb_files_duplicates(const char *const *paths, size_t n, bool *dup)
{
    struct file_key *k = malloc((n ? n : 1) * sizeof *k);
    size_t nk = 0, ndup = 0;
    for (size_t i = 0; i < n; i++) {
        dup[i] = false;
        struct stat st;
        if (k && stat(paths[i], &st) == 0)
            k[nk++] = (struct file_key){st.st_dev, st.st_ino, i};
    }
    if (k) {
        qsort(k, nk, sizeof *k, cmp_file_key);
        for (size_t j = 1; j < nk; j++)
            if (k[j].dev == k[j - 1].dev && k[j].ino == k[j - 1].ino) {
                dup[k[j].i] = true;
                ndup++;
            }
    }
    free(k);
    return ndup;
}

/* Whether `path` (existing or not) lies inside the folder `dir` (at any depth), both resolved
 * with realpath (path's folder, as path itself may not exist yet). False when dir is not a
 * folder or cannot be resolved. */
static bool inside_dir(const char *path, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    char d[PATH_MAX], p[PATH_MAX], parent[PATH_MAX];
    if (!realpath(dir, d))
        return false;
    if (snprintf(parent, sizeof parent, "%s", path) >= (int)sizeof parent)
        return false;
    char *slash = strrchr(parent, '/');
    if (!slash)
        snprintf(parent, sizeof parent, ".");
    else if (slash == parent)
        parent[1] = '\0';
    else
        *slash = '\0';
    if (!realpath(parent, p))
        return false;
    size_t l = strlen(d);
    return strncmp(p, d, l) == 0 && (p[l] == '\0' || p[l] == '/' || (l == 1 && d[0] == '/'));
}

int gb_col_width(int w, const char *cell, int cap)
{
    int l = (int)strlen(cell);
    return l > w ? (l > cap ? (w > cap ? w : cap) : l) : w;
}

int gb_output_refusal(const char *out, enum gb_output_kind kind, const char *const *inputs,
                      size_t ninputs, char *why, size_t cap)
{
    if (cap)
        why[0] = '\0';
    if (strcmp(out, "-") == 0 && kind == GB_OUTPUT_FILE)
        return 0;
    if (!out[0]) {
        snprintf(why, cap, "the path is empty");
        return -1;
    }
    struct stat lst, st;
    if (lstat(out, &lst) == 0 && S_ISLNK(lst.st_mode) && stat(out, &st) != 0) {
        snprintf(why, cap, "it is a symbolic link to nothing (%s)", strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < ninputs; i++) {
        if (inputs[i] && strcmp(inputs[i], "-") != 0 && same_file(out, inputs[i])) {
            snprintf(why, cap, "it is the input %s", inputs[i]);
            return -1;
        }
        if (inputs[i] && kind == GB_OUTPUT_FILE && inside_dir(out, inputs[i])) {
            snprintf(why, cap, "it is inside the input folder %s, whose files are inputs",
                     inputs[i]);
            return -1;
        }
    }
    if (stat(out, &st) != 0)
        return 0; /* a new file or folder */
    if (kind == GB_OUTPUT_DIR) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(why, cap, "it exists and is not a folder");
            return -1;
        }
        return 0;
    }
    if (S_ISREG(st.st_mode))
        return 0;
    snprintf(why, cap, "%s",
             S_ISDIR(st.st_mode)                          ? "it is a folder; a file is meant"
             : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "it is a device node"
                                                          : "it exists and is not a regular file");
    return -1;
}

char *gb_output_resolve(const char *path, char *buf, size_t cap)
{
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        char r[PATH_MAX];
        if (!realpath(path, r))
            return NULL;
        if (strlen(r) >= cap) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        memcpy(buf, r, strlen(r) + 1);
        return buf;
    }
    if (strlen(path) >= cap) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    memcpy(buf, path, strlen(path) + 1);
    return buf;
}

/* Removes "<base>.gbtmp-<pid>-XXXXXX" in folder dir whose pid no longer runs. */
static void remove_stale_tmps(const char *dir, const char *base)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t bl = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, bl) != 0 || strncmp(n + bl, ".gbtmp-", 7) != 0)
            continue;
        char *end;
        long pid = strtol(n + bl + 7, &end, 10);
        if (end == n + bl + 7 || *end != '-' || strlen(end + 1) != 6 || pid <= 0)
            continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char full[PATH_MAX];
        if (snprintf(full, sizeof full, "%s/%s", dir, n) < (int)sizeof full)
            (void)unlink(full);
    }
    closedir(d);
}

int gb_tmp_create(const char *path, char *tmp, size_t cap)
{
    int w = snprintf(tmp, cap, "%s.gbtmp-%ld-XXXXXX", path, (long)getpid());
    if (w < 0 || (size_t)w >= cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (strlen(path) < sizeof dir) {
        if (slash) {
            size_t l = slash == path ? 1 : (size_t)(slash - path);
            memcpy(dir, path, l);
            dir[l] = '\0';
        } else {
            snprintf(dir, sizeof dir, ".");
        }
        remove_stale_tmps(dir, slash ? slash + 1 : path);
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0644 & ~um);
    return fd;
}

/* ---- a terminal-safe stream ------------------------------------------------------------------ */

void gb_term_clean(char *s)
{
    for (unsigned char *p = (unsigned char *)s; *p; p++) {
        if (gb_is_c1(p)) {
            p[0] = p[1] = '?';
            p++;
        } else if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7F) {
            *p = '?';
        }
    }
}

struct term_cookie {
    FILE *to;
    bool held; /* the last byte written was 0xC2, the lead byte of a UTF-8 C1 control maybe */
};

static ssize_t term_write(void *cookie, const char *buf, size_t n)
{
    struct term_cookie *c = cookie;
    unsigned char out[1024];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k + 2 > sizeof out) {
            fwrite(out, 1, k, c->to);
            k = 0;
        }
        unsigned char b = (unsigned char)buf[i];
        if (c->held) {
            c->held = false;
            if (b >= 0x80 && b <= 0x9F) { /* U+0080..U+009F: C1 controls (CSI is U+009B) */
                out[k++] = '?';
                continue;
            }
            out[k++] = 0xC2;
        }
        if (b == 0xC2) {
            c->held = true;
            continue;
        }
        out[k++] = (b < 0x20 && b != '\n' && b != '\t') || b == 0x7F ? '?' : b;
    }
    fwrite(out, 1, k, c->to);
    fflush(c->to);
    return (ssize_t)n;
}

static int term_close(void *cookie)
{
    struct term_cookie *c = cookie;
    if (c->held)
        fputc(0xC2, c->to);
    int rc = fflush(c->to);
    free(c);
    return rc;
}

FILE *gb_raw_stderr;
/* stderr's stream lives until the process ends: its cookie stays reachable from here
 * (LeakSanitizer reported it through glibc's FILE). */
static struct term_cookie *term_stderr_cookie;
static FILE *term_open(FILE *to, struct term_cookie **cookie);

void gb_term_protect_stderr(void)
{
    if (gb_raw_stderr)
        return;
    gb_raw_stderr = stderr;
    FILE *e = term_open(stderr, &term_stderr_cookie);
    if (!e)
        return;
    setvbuf(e, NULL, _IOLBF, 0);
    stderr = e; /* glibc: stderr is an ordinary variable that a program may set */
}

static FILE *term_open(FILE *to, struct term_cookie **cookie)
{
    struct term_cookie *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->to = to;
    cookie_io_functions_t io = {.write = term_write, .close = term_close};
    FILE *f = fopencookie(c, "w", io);
    if (!f) {
        free(c);
        c = NULL;
    }
    if (cookie)
        *cookie = c;
    return f;
}

FILE *gb_term_stream(FILE *to)
{
    return term_open(to, NULL);
}

void gb_fputs_csv(FILE *f, const char *s)
{
    const bool quote = strpbrk(s, ",\"") != NULL;
    if (quote)
        fputc('"', f);
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        if (gb_is_c1(u)) {
            fputc('?', f);
            u++;
        } else if (*u < 0x20 || *u == 0x7F) {
            fputc('?', f);
        } else {
            if (*u == '"')
                fputc('"', f);
            fputc(*u, f);
        }
    }
    if (quote)
        fputc('"', f);
}

size_t gb_edit_distance(const char *a, const char *b)
{
    enum { MAXLEN = 64 };
    size_t na = strnlen(a, MAXLEN), nb = strnlen(b, MAXLEN);
    size_t rows[3][MAXLEN + 1]; /* row k of the table at rows[(k + 1) % 3]: the last three */
    for (size_t j = 0; j <= nb; j++)
        rows[1][j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t *two = rows[(i + 2) % 3], *prev = rows[i % 3], *cur = rows[(i + 1) % 3];
        cur[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t best = prev[j - 1] + (ca == cb ? 0 : 1);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            /* Two neighbours swapped ("alhpa") are one edit. */
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && two[j - 2] + 1 < best)
                best = two[j - 2] + 1;
            cur[j] = best;
        }
    }
    return rows[(na + 1) % 3][nb];
}

const char *gb_did_you_mean(const char *given, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX, glen = strlen(given);
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || strcmp(names[i], given) == 0)
            continue;
        size_t d = gb_edit_distance(given, names[i]);
        if (glen >= 2 && strncmp(names[i], given, glen) == 0)
            d = 1; /* an abbreviation */
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    if (!best)
        return NULL;
    size_t limit = strlen(best) / 3;
    limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
    return best_d <= limit ? best : NULL;
}

const char *gb_did_you_mean_list(const char *given, const char *list, char *buf, size_t len)
{
    enum { MAXWORDS = 96 };
    char words[MAXWORDS][64];
    const char *names[MAXWORDS];
    size_t n = 0;
    for (const char *p = list; *p && n < MAXWORDS;) {
        size_t w = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");
        if (w == 0) {
            p++;
            continue;
        }
        snprintf(words[n], sizeof words[n], "%.*s", (int)(w < 63 ? w : 63), p);
        if (strcmp(words[n], "or") != 0 && strcmp(words[n], "and") != 0) {
            names[n] = words[n];
            n++;
        }
        p += w;
    }
    const char *near = gb_did_you_mean(given, names, n);
    if (!near || !len)
        return NULL;
    snprintf(buf, len, "%s", near);
    return buf;
}

void gb_put_wrapped(FILE *f, const char *text, int width)
{
    for (const char *s = text; s && *s;) {
        const size_t l = strcspn(s, "\n"), indent = strspn(s, " ");
        size_t chars = 0;
        for (size_t i = 0; i < l; i++)
            chars += ((unsigned char)s[i] & 0xC0) != 0x80;
        if (width <= 0 || chars <= (size_t)width) {
            fprintf(f, "%.*s\n", (int)l, s);
        } else {
            size_t col = 0;
            for (size_t i = indent; i < l;) {
                while (i < l && s[i] == ' ')
                    i++;
                size_t n = 0, w = 0;
                for (; i + n < l && s[i + n] != ' '; n++)
                    w += ((unsigned char)s[i + n] & 0xC0) != 0x80;
                if (!n)
                    break;
                if (col == 0) {
                    col = (size_t)fprintf(f, "%*s", (int)indent, "");
                } else if (col + 1 + w > (size_t)width) {
                    col = (size_t)fprintf(f, "\n%*s", (int)(indent + 2), "") - 1;
                } else {
                    fputc(' ', f);
                    col++;
                }
                fprintf(f, "%.*s", (int)n, s + i);
                col += w;
                i += n;
            }
            fputc('\n', f);
        }
        s += l + (s[l] == '\n');
    }
}
