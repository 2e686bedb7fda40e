/* gpubench — the price sheet of `gpubench report --prices` (libyaml).
 *
 *   # prices.yaml: what each device costs to buy and how much power it draws
 *   currency: USD                    # optional; default USD
 *   devices:
 *     "NVIDIA H100 80GB HBM3": {price: 30000, power: 700}
 *     pthread: {price: 450, power: 65} # a key that is not a device's exact name matches as a
 *                                      # case-insensitive substring; the longest such key wins
 *
 * price: the purchase price in `currency` (> 0); power: board power in watts (> 0), the TDP or a
 * measured draw. Either may be left out; a chart that needs it says so. Every error is reported
 * as "file:line:column: message".
 */
#ifndef GB_PRICES_H
#define GB_PRICES_H

#include <stddef.h>

struct gb_price {
    char match[256]; /* the key: an exact device name, or a substring of one */
    double price;    /* in the sheet's currency; NAN when not given */
    double power_w;  /* watts; NAN when not given */
    int line;        /* where the entry is, for messages */
};

struct gb_prices {
    char path[1024];
    char currency[16];
    struct gb_price *v; /* malloc'd */
    size_t n;
};

/* Loads a price sheet. Returns 0, or GB_EIO (unreadable) / GB_ECONFIG (anything wrong in it) with
 * "file:line:column: message" in err. Nothing is allocated on error. */
int gb_prices_load(const char *path, struct gb_prices *out, char *err, size_t errlen);

/* The entry for a device name: an exact match, else the longest key that is a case-insensitive
 * substring of the name; NULL when none matches. */
const struct gb_price *gb_prices_find(const struct gb_prices *p, const char *device_name);

void gb_prices_free(struct gb_prices *p);

#endif
