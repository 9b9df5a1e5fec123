// The GQA view's bars: no text overlaps another or leaves the figure, for every bundled
// preset at every width from a small phone's to a wide screen's, live (the view's bars at
// the element's width) and in the standalone figure (kv.svg(), the Download SVG button and
// `kvcalc svg`: 720 wide), measured by Chromium's own text boxes (getBBox). Mistral-7B's
// MLA row was the case that overlapped: its sliding window keeps 4,096 tokens a layer while
// the MLA variant keeps them all, so its point lies far right and its long text once went
// to the point's left, over the row's name and off the figure.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, problems, CLEAN } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const WIDTHS = [300, 340, 420, 600, 760, 1000, 1400];

test('the GQA bars of every preset: no label overlaps another or leaves the figure, live at every width and in kv.svg()', async () => {
  const { page, log } = await openPage(env, '/gqa.html', { viewport: { width: 1500, height: 900 } });
  await waitForWidgets(page);
  const found = await page.evaluate(async (widths) => {
    // Every text of an SVG against every other and against the figure's box ([] when fine).
    const check = (svg, label) => {
      const [, , W, H] = svg.getAttribute('viewBox').split(/\s+/).map(Number);
      // Each text's box in the figure's coordinates (its groups' translations added).
      const boxes = [...svg.querySelectorAll('text')].map((t) => {
        const { x, y, width, height } = t.getBBox();
        let [dx, dy] = [0, 0];
        for (let n = t.parentElement; n !== svg; n = n.parentElement) {
          const m = n.transform?.baseVal.consolidate()?.matrix;
          if (m) [dx, dy] = [dx + m.e, dy + m.f];
        }
        return { text: t.textContent, box: { x: x + dx, y: y + dy, width, height } };
      });
      const out = [];
      boxes.forEach(({ text, box: b }, i) => {
        if (b.x < -0.5 || b.y < -0.5 || b.x + b.width > W + 0.5 || b.y + b.height > H + 0.5) {
          out.push(`${label}: "${text}" leaves the figure (${b.x.toFixed(0)}..${(b.x + b.width).toFixed(0)} of ${W})`);
        }
        for (const { text: other, box: c } of boxes.slice(i + 1)) {
          const apart = b.x + b.width <= c.x || c.x + c.width <= b.x || b.y + b.height <= c.y || c.y + c.height <= b.y;
          if (!apart) out.push(`${label}: "${text}" overlaps "${other}"`);
        }
      });
      return out;
    };
    const el = document.getElementById('gqa-window');
    const kv = await (await import('/dist/kvcalc.js')).load();
    const out = [];
    let figures = 0;
    for (const { id } of kv.presets()) {
      el.setAttribute('model', id);
      for (const w of widths) {
        el.style.width = `${w}px`;
        await el.updateComplete;
        await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
        const bars = el.shadowRoot.querySelector('.gqa-bars');
        if (!bars.querySelector('text')) continue;  // no KV heads to vary
        out.push(...check(bars, `${id} at ${w} px`));
        figures += 1;
      }
      // The standalone figure, measured in the element's shadow root, whose style sheet has
      // the figure's text rules (the page's CSP refuses the figure's own <style>).
      const text = await kv.svg(id, { chart: 'gqa' }).catch(() => null);
      if (!text) continue;
      const figure = new DOMParser().parseFromString(text.replace(/<style>[^<]*<\/style>/, ''), 'image/svg+xml').documentElement;
      el.shadowRoot.append(figure);
      out.push(...check(figure, `${id}, kv.svg()`));
      figure.remove();
      figures += 1;
    }
    return { out, figures };
  }, WIDTHS);
  assert.deepEqual(found.out, []);
  assert.ok(found.figures > 100, `${found.figures} figures measured`);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
