// et.profile off the page's thread (profile-view.mjs): an ETDump of
// 200,000 runs takes the core seconds to join, and the page must keep
// answering meanwhile. One message in ({etdump, pte}: bytes), one out
// ({result} or {error: {code, message}}); the result packed as text
// (core-pack.mjs: a structured clone of 200,000 runs took the page one
// ~3 s task to receive).
import init from './pkg/index.browser.mjs';
import { packResult } from './core-pack.mjs';
import { profileDigest } from './profile-digest.mjs';

const ready = init();
self.onmessage = async ({ data }) => {
  try {
    const et = await ready;
    const result = et.profile(data.etdump, data.pte);
    const { packed, transfer } = packResult(result);
    const digest = packResult(profileDigest(result));  // the page's loops over every event, done here
    self.postMessage({ result: packed, digest: digest.packed }, [...transfer, ...digest.transfer]);
  } catch (e) {
    self.postMessage({ error: { code: e?.code ?? null, message: String(e?.message ?? e) } });
  }
};
