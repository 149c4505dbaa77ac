import { Window } from 'happy-dom';

/** What a DOM sweep found in rendered HTML. */
export interface DomSweep {
  /** Red "Unknown component type" boxes (`.bvl-render-error`). */
  readonly errorBoxes: number;
  /** The type each red box names, in document order ("(none)" for a schema with no type). */
  readonly unknownTypes: string[];
  /** Widgets drawn empty because a binding or the query shape is missing (`.bvl-empty-widget`). */
  readonly emptyWidgets: number;
  /** Notes that a component is drawn in place of what was authored (`.bvl-degraded`): another type, a picked field, part of the query. */
  readonly degraded: number;
  /** Components drawn (`[data-bvl-component]`, empty widgets included). */
  readonly components: number;
  /** Empty data states (`.bvl-no-data`): no rows were given, which is L3's concern, not a render defect. */
  readonly noData: number;
  /** Accessibility slips: a header cell without scope, an image without alt, a form control without a label. */
  readonly a11yViolations: number;
}

const PREFIX = 'Unknown component type: ';
let shared: Window | undefined;
let root: ReturnType<Window['document']['createElement']> | undefined;
type Element = ReturnType<Window['document']['createElement']>;

/**
 * Parses HTML with happy-dom and counts what a person browsing the page would notice: red error
 * boxes, empty widgets, drawn-instead notes, empty data states, and basic accessibility slips. One
 * happy-dom window and one detached root are reused across calls (creating a window costs far more
 * than parsing a widget). The elements are visited by one walk, not querySelectorAll: happy-dom 21
 * retains every node a selector query has seen (~0.1 MB a sweep), which exhausts the heap over the
 * agreement test's tens of thousands of sweeps.
 */
export function sweepDom(html: string): DomSweep {
  // Swept HTML is data: never run or fetch anything it mentions (JS evaluation, CSS and iframes are off by default).
  shared ??= new Window({
    settings: {
      disableJavaScriptFileLoading: true,
      navigation: { disableMainFrameNavigation: true, disableChildFrameNavigation: true, disableChildPageNavigation: true },
    },
  });
  root ??= shared.document.createElement('div');
  root.innerHTML = html;
  const counts = { errorBoxes: 0, emptyWidgets: 0, degraded: 0, components: 0, noData: 0, a11yViolations: 0 };
  const unknownTypes: string[] = [];
  const labelled = new Set<string>();
  const controls: Array<{ id: string; named: boolean }> = [];
  const visit = (el: Element, insideLabel: boolean): void => {
    const tag = el.tagName.toLowerCase();
    const cls = el.classList;
    if (cls.contains('bvl-render-error')) {
      counts.errorBoxes++;
      unknownTypes.push((el.textContent ?? '').replace(PREFIX, ''));
    }
    if (cls.contains('bvl-empty-widget')) counts.emptyWidgets++;
    if (cls.contains('bvl-degraded')) counts.degraded++;
    if (cls.contains('bvl-no-data')) counts.noData++;
    if (el.hasAttribute('data-bvl-component')) counts.components++;
    if ((tag === 'th' && !el.hasAttribute('scope')) || (tag === 'img' && !el.hasAttribute('alt'))) counts.a11yViolations++;
    if (tag === 'label' && el.hasAttribute('for')) labelled.add(el.getAttribute('for') ?? '');
    if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'output')
      controls.push({ id: el.id, named: insideLabel || !!el.getAttribute('aria-label') });
    for (const child of el.children) visit(child as unknown as Element, insideLabel || tag === 'label');
  };
  for (const child of root.children) visit(child as unknown as Element, false);
  counts.a11yViolations += controls.filter((c) => !c.named && !(c.id && labelled.has(c.id))).length;
  root.innerHTML = '';
  return { ...counts, unknownTypes };
}
