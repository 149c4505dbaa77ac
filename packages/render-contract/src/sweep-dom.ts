import { Window } from 'happy-dom';

/** What a DOM sweep found in rendered HTML. */
export interface DomSweep {
  /** Red "Unknown component type" boxes (`.bvl-render-error`). */
  readonly errorBoxes: number;
  /** The type each red box names, in document order ("(none)" for a schema with no type). */
  readonly unknownTypes: string[];
  /** Widgets drawn empty because a binding or the query shape is missing (`.bvl-empty-widget`). */
  readonly emptyWidgets: number;
  /** Components drawn (`[data-bvl-component]`, empty widgets included). */
  readonly components: number;
  /** Empty data states (`.bvl-no-data`): no rows were given, which is L3's concern, not a render defect. */
  readonly noData: number;
  /** Accessibility slips: a header cell without scope, an image without alt, a form control without a label. */
  readonly a11yViolations: number;
}

const PREFIX = 'Unknown component type: ';
let shared: Window | undefined;

/**
 * Parses HTML with happy-dom and counts what a person browsing the page would notice: red error
 * boxes, empty widgets, empty data states, and basic accessibility slips. One happy-dom window
 * is reused across calls (creating one costs far more than parsing a widget).
 */
export function sweepDom(html: string): DomSweep {
  // Swept HTML is data: never run or fetch anything it mentions (JS evaluation, CSS and iframes are off by default).
  shared ??= new Window({
    settings: {
      disableJavaScriptFileLoading: true,
      navigation: { disableMainFrameNavigation: true, disableChildFrameNavigation: true, disableChildPageNavigation: true },
    },
  });
  const document = shared.document;
  const root = document.createElement('div');
  root.innerHTML = html;
  const boxes = [...root.querySelectorAll('.bvl-render-error')];
  const labelled = new Set([...root.querySelectorAll('label[for]')].map((l) => l.getAttribute('for')));
  const unlabelledControls = [...root.querySelectorAll('input, select, textarea, output')].filter(
    (c) => !(c.id && labelled.has(c.id)) && !c.getAttribute('aria-label') && !c.closest('label'),
  ).length;
  return {
    errorBoxes: boxes.length,
    unknownTypes: boxes.map((b) => (b.textContent ?? '').replace(PREFIX, '')),
    emptyWidgets: root.querySelectorAll('.bvl-empty-widget').length,
    components: root.querySelectorAll('[data-bvl-component]').length,
    noData: root.querySelectorAll('.bvl-no-data').length,
    a11yViolations: root.querySelectorAll('th:not([scope]), img:not([alt])').length + unlabelledControls,
  };
}
