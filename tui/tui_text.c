/*
 * tui_text.c — text for the screen: what the terminal can show (UTF-8 as itself on a UTF-8
 * terminal; stm's θ and σ spelled theta and sigma on another, other characters beyond ASCII as
 * '?'; control bytes as '?') and fitted to a number of screen columns, not bytes.  The tree, the
 * program and diff pane and the compare view show labels and program text through it.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"

/* Letters that name a program's parameters and transforms (stm's θ and σ in node labels and in
 * the diff's header): spelled out where the terminal is not UTF-8. */
static const struct { unsigned code; const char *spelled; } spelled_letters[] = {
    {0x03b8, "theta"}, {0x03c3, "sigma"}, {0x0398, "Theta"}, {0x03a3, "Sigma"},
};

/* The length of the UTF-8 sequence at p (at most `left` bytes) and its code point in *code;
 * 0 when the bytes are no valid sequence. */
static size_t utf8_char(const unsigned char *p, size_t left, unsigned *code)
{
    size_t k = p[0] >= 0xf0 && p[0] < 0xf5 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
    if (k == 0 || k > left) return 0;
    unsigned c = p[0] & (0x7f >> k);
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    if ((k == 3 && c < 0x800) || (k == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c < 0xe000)) return 0;
    *code = c;
    return k;
}

void tui_screen_text(const char *p, size_t len, char *out)
{
    int utf8 = MB_CUR_MAX > 1;
    const unsigned char *u = (const unsigned char *)p;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        unsigned code = 0;
        size_t k = u[i] >= 0x80 ? utf8_char(u + i, len - i, &code) : 0;
        if (k == 0) {                                  /* ASCII, or a byte of no character */
            out[o++] = u[i] == '\t' ? ' ' : u[i] < 0x20 || u[i] >= 0x7f ? '?' : (char)u[i];
            i++;
            continue;
        }
        const char *spelled = "?";
        for (size_t s = 0; s < sizeof spelled_letters / sizeof spelled_letters[0]; s++)
            if (spelled_letters[s].code == code) spelled = spelled_letters[s].spelled;
        if (utf8 && code >= 0xa0) {
            memcpy(out + o, p + i, k);
            o += k;
        } else {
            memcpy(out + o, spelled, strlen(spelled));
            o += strlen(spelled);
        }
        i += k;
    }
    out[o] = '\0';
}

/* Copies `s` into `out` (n bytes) as exactly `cols` screen columns: characters as wide as the
 * locale says (θ and σ are one column, their UTF-8 two bytes), cut with an ellipsis when wider,
 * padded with blanks when narrower.  Bytes that are no character of the locale count one column. */
void tui_fit_columns(const char *s, int cols, char *out, size_t n)
{
    const char *ellipsis = MB_CUR_MAX > 1 ? "\u2026" : "~";
    size_t len = strlen(s), o = 0, cut_o = 0;
    int used = 0, cut_used = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < len;) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + i, len - i, &st);
        int wd = 1;
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) { k = 1; memset(&st, 0, sizeof st); }
        else if (wcwidth(wc) >= 0) wd = wcwidth(wc);
        if (used + wd > cols || o + k + 4 > n) {           /* no room: cut at the last fit */
            o = cut_o;
            used = cut_used;
            if (cols > 0 && o + strlen(ellipsis) < n) {
                strcpy(out + o, ellipsis);
                o += strlen(ellipsis);
                used++;
            }
            break;
        }
        if (used + wd <= cols - 1) { cut_o = o + k; cut_used = used + wd; }  /* "…" fits after */
        memcpy(out + o, s + i, k);
        o += k;
        used += wd;
        i += k;
    }
    while (used < cols && o + 1 < n) { out[o++] = ' '; used++; }
    out[o] = '\0';
}

void tui_fit_text(const char *s, int cols, char *out, size_t n)
{
    char shown[5 * TUI_LINE + 1];
    size_t len = strlen(s);
    tui_screen_text(s, len < TUI_LINE ? len : TUI_LINE, shown);
    tui_fit_columns(shown, cols, out, n);
}
