/// <reference lib="dom" />
/**
 * The demo page's one DOM helper: an element by id, typed as the caller
 * expects (every id the scripts use is in web/index.html).
 *
 * @module
 */

/**
 * The element with id `id`.
 *
 * @param id The element's id.
 * @returns The element (typed as asked; the page has every id the scripts use).
 */
export const _$ = <T extends HTMLElement = HTMLElement>(id: string): T =>
  document.getElementById(id) as T;
