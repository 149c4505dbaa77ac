import { describe, expect, it } from 'vitest';
import { renderErrorBox } from './render-to-html.ts';
import { sweepDom } from './sweep-dom.ts';

describe('sweepDom', () => {
  it('counts red boxes and names their types', () => {
    const html = `<main>${renderErrorBox(undefined)}<p>fine</p>${renderErrorBox('list')}</main>`;
    expect(sweepDom(html)).toMatchObject({ errorBoxes: 2, unknownTypes: ['(none)', 'list'], emptyWidgets: 0, components: 0 });
  });

  it('counts empty widgets, components and empty data states', () => {
    const html =
      '<section data-bvl-component="chart"><p class="bvl-no-data">No data</p></section><div class="bvl-empty-widget" data-bvl-component="object-kanban">x</div>';
    expect(sweepDom(html)).toMatchObject({ errorBoxes: 0, emptyWidgets: 1, components: 2, noData: 1, a11yViolations: 0 });
  });

  it('counts accessibility slips: th without scope, img without alt, unlabelled controls', () => {
    const html =
      '<table><tr><th>a</th><th scope="col">b</th></tr></table><img src="x"><input id="i"><label for="i">I</label><select></select><label>Wrapped <input></label><textarea aria-label="t"></textarea>';
    expect(sweepDom(html).a11yViolations).toBe(3);
  });

  it('runs nothing it sweeps', () => {
    const g = globalThis as { bvlSwept?: boolean };
    expect(sweepDom('<script>globalThis.bvlSwept = true</script><img src=x onerror="globalThis.bvlSwept = true" alt="">').errorBoxes).toBe(0);
    expect(g.bvlSwept).toBeUndefined();
  });

  it('survives malformed HTML and empty input', () => {
    expect(sweepDom('')).toMatchObject({ errorBoxes: 0, components: 0 });
    expect(sweepDom('<div class="bvl-render-error"><table><td>').errorBoxes).toBe(1);
  });
});
