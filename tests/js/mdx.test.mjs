// kvcalc/mdx (dist/mdx.mjs), the remark plugin for MDX sites rendered by React, in a real
// MDX compile (@mdx-js/mdx, as Rspress, Docusaurus and Nextra compile pages): each <kv-calc>
// of a page comes out with what `kvcalc bake` writes inside it as its dangerouslySetInnerHTML
// and suppressHydrationWarning; an element with content of its author is left as written;
// an element inside a paragraph, an attribute the build cannot read and a bad attribute fail
// the compile naming the file, the line and the attribute. The pages are run with a JSX
// runtime that records what they render (the props React would get).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { evaluate } from '@mdx-js/mdx';
import { dist } from './support.mjs';

const { default: remarkKvcalc } = await import(join(dist, 'mdx.mjs'));
const { fallbackHtml } = await import(join(dist, 'bake.mjs'));

// The elements named tag that a page renders: { type, props } each.
async function rendered(source, options, tag = 'kv-calc') {
  const record = (type, props) => ({ type, props });
  const page = await evaluate({ value: source, path: 'docs/page.mdx' },
    { jsx: record, jsxs: record, Fragment: 'fragment', remarkPlugins: [[remarkKvcalc, options]] });
  const found = [];
  const walk = (node) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      if (node.type === tag) found.push(node);
      walk(node.props?.children);
    }
  };
  walk(page.default({}));
  return found;
}

const compileError = async (source) => {
  try {
    await rendered(source);
  } catch (e) {
    return e.message;
  }
  return assert.fail('the page compiled');
};

test('a <kv-calc> of an MDX page gets what bake writes inside it as its dangerouslySetInnerHTML, with suppressHydrationWarning', async () => {
  const [el] = await rendered('# Sizing\n\n<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768" />\n');
  const html = await fallbackHtml({ model: 'Qwen/Qwen2.5-7B-Instruct', context: '32768' }, undefined, { stylesheet: '/kvcalc.css' });
  assert.deepEqual(el.props, {
    model: 'Qwen/Qwen2.5-7B-Instruct', context: '32768', dangerouslySetInnerHTML: { __html: html }, suppressHydrationWarning: true,
  });
  // The first render as a declarative shadow root linking /kvcalc.css, then the figures in
  // words: 2 x 28 layers x 4 KV heads x 128 x 2 B = 57,344 B per token; x 32,768 = 1.75 GiB.
  assert.match(html, /^<template shadowrootmode="open"><link rel="stylesheet" href="\/kvcalc\.css"><div class="kv" part="base" data-kvcalc-baked="0\.1\.0">/);
  assert.match(html, /<dt>Bytes per token<\/dt><dd><strong>57,344 B<\/strong><\/dd>/);
  assert.match(html, /<\/template>\n<p class="fallback" data-kvcalc-baked="0\.1\.0">Qwen\/Qwen2\.5-7B-Instruct keeps <data value="57344">57,344 B<\/data> of KV cache per token \(bf16\) and <data value="1879048192">1\.75 GiB \(1,879,048,192 B\)<\/data>/);
});

test('literal expressions are read as their text; the props an older recipe wrote are replaced; the style sheet\'s href and the language are options', async () => {
  const [el] = await rendered('<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context={32768} kv-dtype={"fp8"} dangerouslySetInnerHTML={{ __html: \'\' }} />\n');
  // fp8: 2 x 28 x 4 x 128 x 1 B = 28,672 B per token.
  assert.equal(el.props.dangerouslySetInnerHTML.__html,
    await fallbackHtml({ model: 'Qwen/Qwen2.5-7B-Instruct', context: '32768', 'kv-dtype': 'fp8' }, undefined, { stylesheet: '/kvcalc.css' }));
  assert.match(el.props.dangerouslySetInnerHTML.__html, /keeps <data value="28672">28,672 B<\/data> of KV cache per token \(fp8\)/);
  assert.deepEqual(Object.keys(el.props), ['model', 'context', 'kv-dtype', 'dangerouslySetInnerHTML', 'suppressHydrationWarning']);
  const [de] = await rendered('<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32K" />\n', { stylesheet: '/docs/kvcalc.css', lang: 'de' });
  assert.equal(de.props.dangerouslySetInnerHTML.__html,
    await fallbackHtml({ model: 'Qwen/Qwen2.5-7B-Instruct', context: '32K' }, undefined, { stylesheet: '/docs/kvcalc.css', lang: 'de' }));
  assert.match(de.props.dangerouslySetInnerHTML.__html, /^<template shadowrootmode="open"><link rel="stylesheet" href="\/docs\/kvcalc\.css">/);
});

test('an element with content of its author is left as written', async () => {
  const [el] = await rendered('<kv-calc model="Qwen/Qwen2.5-7B-Instruct">\n  Written by hand.\n</kv-calc>\n');
  assert.deepEqual(el.props, { model: 'Qwen/Qwen2.5-7B-Instruct', children: { type: 'p', props: { children: 'Written by hand.' } } });
});

test('an element in a paragraph, an attribute the build cannot read and a bad attribute fail the compile, naming the file, the line and the attribute', async () => {
  assert.equal(await compileError('# Sizing\n\nThe cache: <kv-calc model="Qwen/Qwen2.5-7B-Instruct" /> per token.\n'),
    'docs/page.mdx:3: <kv-calc> is inside a paragraph, which cannot hold its baked figures (blocks): write it on a line of its own, with a blank line before and after');
  assert.equal(await compileError('<kv-calc context={tokens} />\n'),
    'docs/page.mdx:1: <kv-calc> context={tokens}: the build cannot read an expression: write the value as text (context="...")');
  assert.equal(await compileError('<kv-calc {...props} />\n'),
    'docs/page.mdx:1: <kv-calc> has a spread attribute ({...props}): write each attribute as text, which the build reads');
  assert.match(await compileError('\n\n<kv-calc kv-dtype="fp9" />\n'), /^docs\/page\.mdx:3: <kv-calc> kv-dtype: unknown "fp9" \(expected auto, /);
  assert.match(await compileError('<kv-calc model="Nope/Nope" />\n'), /^docs\/page\.mdx:1: <kv-calc> model: "Nope\/Nope" is not a bundled preset id/);
});
