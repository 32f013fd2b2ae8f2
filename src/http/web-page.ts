/**
 * Whether a 2xx answer is a web page rather than the API's answer: a base URL that leads to
 * a web front end answers 200 to anything, and a page must never count as a deletion. Said
 * by its media type (HTML or XHTML), or by its start, whatever the type claims (servers
 * label pages text/plain or leave the type out): a doctype or one of the tags a page opens
 * with, after any byte-order mark, whitespace, XML prolog and comments.
 */
export function isWebPage(contentType: string | undefined, body: string): boolean {
  return PAGE_TYPE.test(contentType ?? '') || PAGE_START.test(afterPreamble(body));
}

// text/html, application/xhtml+xml and their kin, with any parameters; not a type that only begins with the word.
const PAGE_TYPE = /\bx?html\b/i;

// <html>, <head> and <body> may each be left out of a page, but one of them (or the doctype) starts it.
const PAGE_START = /^<(?:!doctype\s+html\b|(?:html|head|body)[\s/>])/i;

/** The body from its first element or doctype: a BOM, whitespace, XML prologs (`<?…?>`) and comments skipped. */
function afterPreamble(body: string): string {
  let at = 0;
  for (;;) {
    while (at < body.length && (body[at] === '\uFEFF' || /\s/.test(body[at] as string))) at += 1;
    const close = body.startsWith('<?', at) ? '?>' : body.startsWith('<!--', at) ? '-->' : undefined;
    if (close === undefined) return body.slice(at);
    const end = body.indexOf(close, at + 2);
    // A prolog or comment that never ends: nothing after it can be read as the page's start.
    if (end === -1) return '';
    at = end + close.length;
  }
}
