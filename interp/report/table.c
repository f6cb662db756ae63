/* table: a report table as data, built once, rendered as text, csv, html. */
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/table.h"
#include "results/csv.h"
#include "util/grow.h"

/* ---- building ----------------------------------------------------------- */

static int fail(struct table *t)
{
	t->failed = 1;
	return -1;
}

/* A copy of s (NULL stays NULL), counting a failure in t. */
static char *dup_of(struct table *t, const char *s)
{
	char *c;

	if (!s)
		return NULL;
	if (!(c = strdup(s)))
		t->failed = 1;
	return c;
}

/* n copies of cell (NULL as nul, or kept NULL), or NULL with t failed. */
static char **cells_of(struct table *t, const char *const *cell, size_t n,
		       const char *nul)
{
	char **c = calloc(n + 1, sizeof(*c));

	if (!c) {
		fail(t);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if ((cell[i] || nul) &&
		    !(c[i] = dup_of(t, cell[i] ? cell[i] : nul)))
			break;
	return c;
}

int table_init(struct table *t, int ncol, int left, const char *const *name,
	       const char *const *unit)
{
	t->ncol = ncol;
	t->left = left;
	if (!(t->col = calloc((size_t)ncol, sizeof(*t->col))))
		return fail(t);
	for (int c = 0; c < ncol; c++) {
		t->col[c].name = dup_of(t, name[c] ? name[c] : "");
		t->col[c].unit = unit ? dup_of(t, unit[c]) : NULL;
	}
	return t->failed ? -1 : 0;
}

int table_wrap(struct table *t, int c, int width)
{
	if (c < 0 || c >= t->ncol)
		return fail(t);
	t->col[c].wrap = width;
	return 0;
}

int table_layout(struct table *t, const char *sect_fmt, const char *row_fmt,
		 const char *sub_fmt)
{
	t->sect_fmt = dup_of(t, sect_fmt);
	t->row_fmt = dup_of(t, row_fmt);
	t->sub_fmt = dup_of(t, sub_fmt);
	return t->failed ? -1 : 0;
}

int table_head(struct table *t, const char *fmt, const char *const *cell,
	       size_t n)
{
	struct table_head *h = realloc(t->head, (t->n_head + 1) * sizeof(*h));

	if (!h)
		return fail(t);
	t->head = h;
	h += t->n_head++;
	h->fmt = dup_of(t, fmt);
	h->cell = cell ? cells_of(t, cell, n, NULL) : NULL;
	h->n = n;
	return t->failed ? -1 : 0;
}

int table_section(struct table *t, const char *title, const char *text_title)
{
	struct table_sect *s = realloc(t->sect, (t->n_sect + 1) * sizeof(*s));

	if (!s)
		return fail(t);
	t->sect = s;
	s += t->n_sect++;
	s->first = t->n;
	s->title = dup_of(t, title);
	s->text_title = dup_of(t, text_title);
	return t->failed ? -1 : 0;
}

int table_row(struct table *t, const char *const *cell, int sub)
{
	struct table_row *r = grow_array(t->row, &t->cap, t->n + 1,
					 sizeof(*r), 16);

	if (!r)
		return fail(t);
	t->row = r;
	r[t->n].sub = sub;
	if (!(r[t->n++].cell = cells_of(t, cell, (size_t)t->ncol, "")))
		t->n--;
	return t->failed ? -1 : 0;
}

int table_note(struct table *t, const char *note)
{
	free(t->note);
	t->note = dup_of(t, note);
	return t->failed ? -1 : 0;
}

static void free_cells(char **c, size_t n)
{
	for (size_t i = 0; c && i < n; i++)
		free(c[i]);
	free(c);
}

void table_free(struct table *t)
{
	for (int c = 0; c < t->ncol && t->col; c++) {
		free(t->col[c].name);
		free(t->col[c].unit);
	}
	free(t->col);
	for (size_t i = 0; i < t->n; i++)
		free_cells(t->row[i].cell, (size_t)t->ncol);
	free(t->row);
	for (size_t i = 0; i < t->n_sect; i++) {
		free(t->sect[i].title);
		free(t->sect[i].text_title);
	}
	free(t->sect);
	for (size_t i = 0; i < t->n_head; i++) {
		free(t->head[i].fmt);
		free_cells(t->head[i].cell, t->head[i].n);
	}
	free(t->head);
	free(t->note);
	free(t->sect_fmt);
	free(t->row_fmt);
	free(t->sub_fmt);
	memset(t, 0, sizeof(*t));
}

const char *table_num(char *buf, size_t len, const char *fmt, double v)
{
	if (v != v)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

const char *table_colhead(const struct table *t, int c, char *buf,
			  size_t len)
{
	if (!t->col[c].unit || !t->col[c].unit[0])
		return t->col[c].name;
	snprintf(buf, len, "%s (%s)", t->col[c].name, t->col[c].unit);
	return buf;
}

/* ---- text --------------------------------------------------------------- */

/* One field of a template: %[-][N|*[-N]][j]s. */
struct field {
	int left, fitted, join, width;
};

/* The field at p (after its '%'); returns the end (at the 's'). */
static const char *field_of(const char *p, struct field *fl)
{
	char *e;

	memset(fl, 0, sizeof(*fl));
	if (*p == '-') {
		fl->left = 1;
		p++;
	}
	if (*p == '*') {
		fl->fitted = 1;
		p++;
		if (*p == '-' || (*p >= '0' && *p <= '9')) {
			fl->width = (int)strtol(p, &e, 10);
			p = e;
		}
	} else {
		fl->width = (int)strtol(p, &e, 10);
		p = e;
	}
	if (*p == 'j') {
		fl->join = 1;
		p++;
	}
	return p;
}

/* The fitted width of each column: its widest data cell (a joined pair
 * as one), at least t->width; malloc'd, NULL out of memory. */
static int *fit_widths(const struct table *t)
{
	int *w = calloc((size_t)t->ncol + 1, sizeof(*w));
	const char *p = t->row_fmt ? t->row_fmt : "";
	struct field fl;
	int k = 0;

	if (!w)
		return NULL;
	for (int c = 0; c < t->ncol; c++)
		w[c] = t->width;
	for (; *p && k < t->ncol; p++) {
		if (*p != '%' || *++p == '%' || *p == 't' || *p == '=')
			continue;
		p = field_of(p, &fl);
		for (size_t r = 0; fl.fitted && r < t->n; r++) {
			const char *const *cell = (const char *const *)
						  t->row[r].cell;
			int len = (int)strlen(cell[k]);

			if (fl.join && k + 1 < t->ncol)
				len += 1 + (int)strlen(cell[k + 1]);
			if (!t->row[r].sub && len > w[k])
				w[k] = len;
		}
		k += 1 + fl.join;
	}
	return w;
}

static void dashes(FILE *f, int n)
{
	for (int i = 0; i < n; i++)
		fputc('-', f);
}

/* One line by fmt: its cells (n of them; NULL cells: a rule; a NULL
 * cell: title). */
static void text_line(FILE *f, const char *fmt, const char *const *cell,
		      size_t n, const int *w, int ncol, const char *title)
{
	struct field fl;
	size_t k = 0;

	for (const char *p = fmt; *p; p++) {
		const char *a, *b;
		int width;

		if (*p != '%') {
			fputc(*p, f);
			continue;
		}
		if (*++p == '%' || *p == 't' || *p == '=') {
			if (*p == '=')
				for (size_t i = 0; title && title[i] && i < 50;
				     i++)
					fputc('=', f);
			else
				fputs(*p == '%' ? "%" : title ? title : "", f);
			continue;
		}
		p = field_of(p, &fl);
		width = fl.width + (fl.fitted && (int)k < ncol ? w[k] : 0);
		a = !cell ? "" : k < n ? cell[k] ? cell[k] : title : "";
		b = cell && k + 1 < n && cell[k + 1] ? cell[k + 1] : "";
		if (!cell)
			dashes(f, width);
		else if (fl.join)
			fprintf(f, "%-*s%s", width - (int)strlen(b), a, b);
		else
			fprintf(f, fl.left ? "%-*s" : "%*s", width, a ? a : "");
		k += 1 + fl.join;
	}
	fputc('\n', f);
}

/* The section starting at row r, or NULL. */
static const struct table_sect *sect_at(const struct table *t, size_t r)
{
	for (size_t i = 0; i < t->n_sect; i++)
		if (t->sect[i].first == r)
			return &t->sect[i];
	return NULL;
}

/* Columns of the first n bytes of UTF-8 text ("±" is two bytes, one). */
static int chars_n(const char *s, size_t n)
{
	int k = 0;

	for (size_t i = 0; i < n && s[i]; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

static int chars(const char *s)
{
	return chars_n(s, strlen(s));
}

/* The first line of s wrapped at width columns (table_wrap): its bytes
 * in *len; returns where the next line starts ("" after the last). */
static const char *wrap_line(const char *s, int width, int *len)
{
	const char *p, *end = NULL, *next = NULL;
	int n = 0;

	for (p = s; *p; p++) {
		int full = ((unsigned char)*p & 0xc0) != 0x80 && n++ == width;

		if (*p == ' ')
			end = p, next = p + 1;
		else if (*p == ',' && !full)
			end = p + 1, next = p + 1;
		if (full)
			break;
	}
	if (!*p || !end)	/* the rest fits, or a word is cut */
		end = next = p;
	*len = (int)(end - s);
	while (*next == ' ')
		next++;
	return next;
}

/* The width of column c: its head's, its widest cell's or line's. */
static int fit_width(const struct table *t, int c, const char *head)
{
	int w = chars(head), len, k;

	for (size_t r = 0; r < t->n; r++)
		for (const char *s = t->row[r].cell[c], *next; *s; s = next) {
			next = t->col[c].wrap <= 0 ? s + strlen(s) :
			       wrap_line(s, t->col[c].wrap, &len);
			k = chars_n(s, t->col[c].wrap <= 0 ? strlen(s) :
				    (size_t)len);
			w = k > w ? k : w;
		}
	return w;
}

/* One line of the fitted layout: at[c], the rest of each cell (NULL:
 * the rule), text columns left-aligned (the last one unpadded), the
 * others right-aligned; a wrapped column's cell takes its first line,
 * the others all (at[c] is then the rest). The lines after a row's
 * first end at their last cell. */
static void fitted_line(FILE *f, const struct table *t, const int *w,
			const char **at, int first)
{
	int last = t->ncol - 1;

	while (!first && last > 0 && !*at[last])
		last--;
	for (int c = 0; c <= last; c++) {
		const char *s = at ? at[c] : "";
		int len = (int)strlen(s), pad;

		if (at && t->col[c].wrap > 0)
			at[c] = wrap_line(s, t->col[c].wrap, &len);
		else if (at)
			at[c] = s + len;
		pad = w[c] - chars_n(s, (size_t)len);
		if (!at)
			dashes(f, w[c]);
		else if (c >= t->left)
			fprintf(f, "%*s%.*s", pad, "", len, s);
		else if (c < last)
			fprintf(f, "%.*s%*s", len, s, pad, "");
		else
			fprintf(f, "%.*s", len, s);
		fputs(c < last ? "  " : "\n", f);
	}
}

/* A row of cells in as many lines as its wrapped cells take. */
static void fitted_row(FILE *f, const struct table *t, const int *w,
		       const char *const *cell, const char **at)
{
	int more = 1;

	for (int c = 0; c < t->ncol; c++)
		at[c] = cell[c];
	for (int first = 1; more; first = 0) {
		fitted_line(f, t, w, at, first);
		more = 0;
		for (int c = 0; c < t->ncol; c++)
			more |= *at[c] != '\0';
	}
}

/* A table without a row template: the head, a rule of dashes, the rows,
 * each column as wide as its widest cell, two spaces between. */
static void text_fitted(FILE *f, const struct table *t)
{
	const char **head = calloc((size_t)t->ncol + 1, sizeof(*head));
	const char **at = calloc((size_t)t->ncol + 1, sizeof(*at));
	char (*buf)[512] = calloc((size_t)t->ncol + 1, sizeof(*buf));
	int *w = calloc((size_t)t->ncol + 1, sizeof(*w));

	if (head && at && buf && w) {
		for (int c = 0; c < t->ncol; c++) {
			head[c] = table_colhead(t, c, buf[c], sizeof(buf[c]));
			w[c] = fit_width(t, c, head[c]);
		}
		fitted_row(f, t, w, head, at);
		fitted_line(f, t, w, NULL, 1);
		for (size_t r = 0; r < t->n; r++)
			fitted_row(f, t, w,
				   (const char *const *)t->row[r].cell, at);
		if (t->note)
			fprintf(f, "%s\n", t->note);
	}
	free(head);
	free(at);
	free(buf);
	free(w);
}

void table_text(FILE *f, const struct table *t)
{
	int *w;

	if (!t->row_fmt) {
		text_fitted(f, t);
		return;
	}
	w = fit_widths(t);

	if (!w)
		return;
	for (size_t r = 0; r < t->n; r++) {
		const struct table_sect *s = sect_at(t, r);
		const struct table_row *row = &t->row[r];

		if (s || !r) {
			const char *title = !s ? NULL : s->text_title ?
					    s->text_title : s->title;

			for (const char *p = t->sect_fmt; p && *p; p++)
				if (*p != '%')
					fputc(*p, f);
				else if (*++p == 't')
					fputs(title ? title : "", f);
				else if (*p == '=')
					for (size_t i = 0; title && title[i] &&
					     i < 50; i++)
						fputc('=', f);
				else
					fputc(*p, f);
			for (size_t h = 0; h < t->n_head; h++)
				text_line(f, t->head[h].fmt,
					  (const char *const *)t->head[h].cell,
					  t->head[h].n, w, t->ncol, title);
		}
		text_line(f, row->sub && t->sub_fmt ? t->sub_fmt : t->row_fmt,
			  (const char *const *)row->cell, (size_t)t->ncol, w,
			  t->ncol, NULL);
	}
	if (t->note)
		fprintf(f, "\n%s\n", t->note);
	free(w);
}

/* ---- html and csv ------------------------------------------------------- */

static void html_head(FILE *f, const struct table *t)
{
	char buf[512];

	fputs("<table>\n<thead><tr>", f);
	for (int c = 0; c < t->ncol; c++) {
		fputs("<th>", f);
		html_text(f, table_colhead(t, c, buf, sizeof(buf)));
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
}

void table_html(FILE *f, const struct table *t)
{
	if (!t->n && t->ncol) {	/* the head says what it would hold */
		html_head(f, t);
		fputs("</tbody>\n</table>\n", f);
	}
	for (size_t r = 0; r < t->n; r++) {
		const struct table_sect *s = sect_at(t, r);

		if (s || !r) {
			if (r)
				fputs("</tbody>\n</table>\n", f);
			if (s && s->title) {
				fputs("<h3>", f);
				html_text(f, s->title);
				fputs("</h3>\n", f);
			}
			html_head(f, t);
		}
		fputs("<tr>", f);
		for (int c = 0; c < t->ncol; c++) {
			fputs(c >= t->left ? "<td class=\"num\">" :
			      t->col[c].wrap > 0 ? "<td class=\"words\">" :
			      t->col[c].wrap < 0 ? "<td class=\"marks\">" :
			      "<td>", f);
			html_text(f, t->row[r].cell[c]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	if (t->n)
		fputs("</tbody>\n</table>\n", f);
	if (t->note) {
		fputs("<p class=\"note\">", f);
		html_text(f, t->note);
		fputs("</p>\n", f);
	}
}

static int csv_line(FILE *f, const char *const *cell, int n)
{
	int rc = 0;

	for (int c = 0; c < n; c++)
		rc |= csv_fput(f, cell[c]) ||
		      fputc(c + 1 < n ? ',' : '\n', f) == EOF;
	return rc ? -1 : 0;
}

int table_csv(FILE *f, const struct table *t)
{
	const char **head = calloc((size_t)t->ncol + 1, sizeof(*head));
	char (*buf)[512] = calloc((size_t)t->ncol + 1, sizeof(*buf));
	int rc = head && buf ? 0 : -1;

	for (int c = 0; !rc && c < t->ncol; c++)
		head[c] = table_colhead(t, c, buf[c], sizeof(buf[c]));
	for (size_t r = 0; !rc && r < t->n; r++) {
		const struct table_sect *s = sect_at(t, r);

		if (s || !r) {
			if (r)
				rc |= fputc('\n', f) == EOF;
			if (s && s->title)
				rc |= csv_line(f, (const char *[]){ s->title },
					       1);
			rc |= csv_line(f, head, t->ncol);
		}
		rc |= csv_line(f, (const char *const *)t->row[r].cell,
			       t->ncol);
	}
	if (!rc && t->note)
		rc = csv_line(f, (const char *[]){ t->note }, 1);
	free(head);
	free(buf);
	return rc ? -1 : 0;
}
