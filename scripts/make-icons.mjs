#!/usr/bin/env node
// Draws the app's icons, the PNGs the web app manifest names (installers ask for 192 and 512
// pixels, and a "maskable" one that the system may crop to a circle or a rounded square), from
// www/favicon.svg with Debian's Chromium: `node scripts/make-icons.mjs`. The PNGs are committed
// (a few kB each), so that building the site needs no image tools; run this after changing the
// favicon.

import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const www = fileURLToPath(new URL('../www/', import.meta.url));
const favicon = readFileSync(`${www}favicon.svg`, 'utf8');

/**
 * The favicon drawn to the edges, its glyph shrunk into the middle 80%: the part of a maskable
 * icon that every mask keeps.
 */
function maskable(svg) {
  const [, open, background, glyph] = /^(<svg[^>]*>)(<rect[^>]*\/>)(.*)<\/svg>\s*$/s.exec(svg);
  return `${open}${background.replace(/ rx="[^"]*"/, '')}<g transform="translate(3.2 3.2) scale(0.8)">${glyph}</g></svg>`;
}

const icons = [
  { file: 'icon-192.png', size: 192, svg: favicon },
  { file: 'icon-512.png', size: 512, svg: favicon },
  { file: 'icon-maskable-512.png', size: 512, svg: maskable(favicon) },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  for (const { file, size, svg } of icons) {
    await page.setViewportSize({ width: size, height: size });
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(
      `<body style="margin:0"><img src="${src}" width="${size}" height="${size}" style="display:block">`,
    );
    await page.locator('img').screenshot({ path: `${www}${file}`, omitBackground: true });
    console.log(`www/${file}: ${size}×${size}`);
  }
} finally {
  await browser.close();
}
