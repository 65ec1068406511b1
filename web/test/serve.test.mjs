// The headers scripts/serve.mjs sends with every answer: the page's Content-Security-Policy, a
// second policy saying who may frame the page (only its own origin; the mock hub page anyone),
// and `X-Content-Type-Options: nosniff`. Run after scripts/build-web.sh (it serves dist/).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { policy } from '../../scripts/csp.mjs';
import { serve } from '../../scripts/serve.mjs';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../dist');
let server;
let origin;

before(async () => {
  server = await serve(dist);
  origin = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

test('the viewer may be framed by its own origin only, the mock hub page by anyone', async () => {
  for (const [pathname, frame] of [
    ['/', "frame-ancestors 'self'"],
    ['/index.html', "frame-ancestors 'self'"],
    ['/embed.html', 'frame-ancestors *'],
    ['/web/gguf.js', "frame-ancestors 'self'"],
    ['/nothing-here', "frame-ancestors 'self'"],
  ]) {
    const answer = await fetch(origin + pathname);
    await answer.arrayBuffer();
    assert.equal(answer.headers.get('content-security-policy'), `${policy('page')}, ${frame}`, pathname);
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', pathname);
  }
});

test("a test's own policy replaces the page's; the framing policy stays beside it", async () => {
  const strict = await serve(dist, { headers: { 'Content-Security-Policy': "default-src 'none'" } });
  try {
    const answer = await fetch(`http://127.0.0.1:${strict.address().port}/embed.html`);
    await answer.arrayBuffer();
    assert.equal(answer.headers.get('content-security-policy'), "default-src 'none', frame-ancestors *");
  } finally {
    strict.close();
  }
});
