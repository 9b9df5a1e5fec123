// The element is light or dark as the page is: a page's own dark mode (a `dark` class or
// data-theme on the root element, or color-scheme), else the system's preference; the
// `theme` attribute forces one. Read from the live element's colours.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, problems, CLEAN } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const LIGHT = 'rgb(255, 255, 255)';
const DARK = 'rgb(22, 26, 32)';

// The element's background and the select's (the controls follow the theme too), and its
// dark state, once the page has changed.
const look = (page) => page.$eval('#qwen', async (el) => {
  await new Promise(requestAnimationFrame);
  const select = el.shadowRoot.querySelector('select[name=kv-dtype]');
  return { host: getComputedStyle(el).backgroundColor, select: getComputedStyle(select).backgroundColor,
    scheme: getComputedStyle(select).colorScheme, dark: el.matches(':state(dark)') };
});

test('a page\'s own dark mode: a dark class, data-theme, color-scheme; light when the page says light', async () => {
  const { page, log } = await openPage(env, '/formula.html', { colorScheme: 'light' });
  await waitForWidgets(page);
  assert.deepEqual(await look(page), { host: LIGHT, select: LIGHT, scheme: 'light', dark: false });
  const root = (js) => page.evaluate(js);
  // VitePress and Tailwind: <html class="dark">
  await root(() => document.documentElement.classList.add('dark'));
  assert.deepEqual(await look(page), { host: DARK, select: DARK, scheme: 'dark', dark: true });
  await root(() => document.documentElement.classList.remove('dark'));
  assert.equal((await look(page)).host, LIGHT);
  // Docusaurus and Pico: <html data-theme="dark">
  await root(() => document.documentElement.setAttribute('data-theme', 'dark'));
  assert.equal((await look(page)).host, DARK);
  await root(() => document.documentElement.setAttribute('data-theme', 'light'));
  assert.equal((await look(page)).host, LIGHT);
  await root(() => document.documentElement.removeAttribute('data-theme'));
  // color-scheme: dark on the root (the element inherits it)
  await root(() => { document.documentElement.style.colorScheme = 'dark'; });
  assert.equal((await look(page)).host, DARK);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('the system preference, unless the page says otherwise', async () => {
  const { page } = await openPage(env, '/formula.html', { colorScheme: 'dark' });
  await waitForWidgets(page);
  assert.equal((await look(page)).host, DARK);
  // A page switched to light on a dark system: light.
  await page.evaluate(() => document.documentElement.classList.add('light'));
  assert.equal((await look(page)).host, LIGHT);
  await page.evaluate(() => document.documentElement.classList.remove('light'));
  // "light dark" says either: the system decides.
  await page.evaluate(() => { document.documentElement.style.colorScheme = 'light dark'; });
  assert.equal((await look(page)).host, DARK);
  // The system changes while the page is open. The page hears of it in a 'change' event of
  // matchMedia, which Chromium may dispatch a frame after emulateMedia returns: wait for the
  // element to take it (a timeout here means it never does), then read its colours.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => !document.querySelector('#qwen').matches(':state(dark)'), null, { timeout: 5000 });
  assert.equal((await look(page)).host, LIGHT);
  await page.close();
});

test('theme="dark" and theme="light" force the theme, whatever the page and the system say', async () => {
  const { page } = await openPage(env, '/formula.html', { colorScheme: 'light' });
  await waitForWidgets(page);
  await page.$eval('#qwen', (el) => el.setAttribute('theme', 'dark'));
  assert.deepEqual(await look(page), { host: DARK, select: DARK, scheme: 'dark', dark: true });
  await page.evaluate(() => document.documentElement.classList.add('dark'));
  await page.$eval('#qwen', (el) => { el.theme = 'light'; });
  assert.deepEqual(await look(page), { host: LIGHT, select: LIGHT, scheme: 'light', dark: false });
  await page.$eval('#qwen', (el) => el.setAttribute('theme', 'auto'));
  assert.equal((await look(page)).host, DARK, 'auto: the page\'s dark class again');
  await page.close();
});

// Where docs generators mark their dark mode: the body as well as the root.
const mark = (page, js) => page.evaluate(js);
test('the body\'s marks: a dark class (Hugo themes), furo\'s data-theme (dark, light, auto), MkDocs Material\'s data-md-color-scheme', async () => {
  const { page, log } = await openPage(env, '/formula.html', { colorScheme: 'light' });
  await waitForWidgets(page);
  assert.equal((await look(page)).host, LIGHT);
  await mark(page, () => document.body.classList.add('dark'));
  assert.deepEqual(await look(page), { host: DARK, select: DARK, scheme: 'dark', dark: true });
  await mark(page, () => document.body.classList.remove('dark'));
  assert.equal((await look(page)).host, LIGHT);
  // furo: <body data-theme="dark|light|auto">; auto is the system's.
  await mark(page, () => document.body.setAttribute('data-theme', 'dark'));
  assert.equal((await look(page)).host, DARK);
  await mark(page, () => document.body.setAttribute('data-theme', 'auto'));
  assert.equal((await look(page)).host, LIGHT);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.querySelector('#qwen').matches(':state(dark)'), null, { timeout: 5000 });
  // The body says light on a dark system, even where the root says dark: the body is nearer.
  await mark(page, () => { document.body.setAttribute('data-theme', 'light'); document.documentElement.classList.add('dark'); });
  assert.equal((await look(page)).host, LIGHT);
  await mark(page, () => { document.body.removeAttribute('data-theme'); document.documentElement.classList.remove('dark'); });
  await page.emulateMedia({ colorScheme: 'light' });
  // MkDocs Material: <body data-md-color-scheme="slate|default">
  await mark(page, () => document.body.setAttribute('data-md-color-scheme', 'slate'));
  assert.equal((await look(page)).host, DARK);
  await mark(page, () => document.body.setAttribute('data-md-color-scheme', 'default'));
  assert.equal((await look(page)).host, LIGHT);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('no mark at all: the background the page paints behind the element decides, then the system', async () => {
  const { page, log } = await openPage(env, '/formula.html', { colorScheme: 'light' });
  await waitForWidgets(page);
  // A dark page on a light system, with no class or attribute to say so (the test paints the
  // body from script; a theme's style sheet does the same). rgb(15, 18, 22): luminance 0.006.
  await mark(page, () => { document.body.style.background = 'rgb(15, 18, 22)'; });
  assert.equal((await look(page)).host, DARK);
  // rgb(240, 240, 235): luminance 0.86: light, on a dark system too.
  await mark(page, () => { document.body.style.background = 'rgb(240, 240, 235)'; });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(100);
  assert.equal((await look(page)).host, LIGHT);
  // A transparent background says nothing: the system's dark (page.css paints the body dark then).
  await mark(page, () => { document.body.style.background = 'transparent'; });
  assert.equal((await look(page)).host, DARK);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('the element\'s text takes the size of the text around it (MkDocs Material sets the root to 125%)', async () => {
  const { page } = await openPage(env, '/formula.html', { colorScheme: 'light' });
  await waitForWidgets(page);
  const size = () => page.$eval('#qwen', (el) => getComputedStyle(el).fontSize);
  await page.evaluate(() => { document.documentElement.style.fontSize = '125%'; document.querySelector('main').style.fontSize = '16px'; });
  assert.equal(await size(), '16px');
  await page.evaluate(() => { document.querySelector('main').style.fontSize = '0.7rem'; });
  assert.equal(await size(), '14px', '0.7 x 20 px');
  await page.close();
});
