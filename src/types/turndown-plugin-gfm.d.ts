/** turndown-plugin-gfm ships no types: the plugins it exports take a TurndownService. */
declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export function gfm(service: TurndownService): void;
  export function tables(service: TurndownService): void;
  export function strikethrough(service: TurndownService): void;
  export function highlightedCodeBlock(service: TurndownService): void;
  export function taskListItems(service: TurndownService): void;
}
