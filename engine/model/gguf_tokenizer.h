#pragma once
// The tokenizer of a GGUF file, from its tokenizer.ggml.* keys, built on the project's
// two tokenizers rather than a third one:
//   model "llama" (SentencePiece: pieces, scores, types) → a SentencePiece ModelProto
//     (BPE by score, byte fallback when the 256 byte pieces are there, identity
//     normalisation, dummy prefix per tokenizer.ggml.add_space_prefix), the way
//     llama.cpp's converter read it out of tokenizer.model;
//   model "gpt2" (byte-level BPE: tokens, merges) → a tokenizer.json with the
//     pre-tokenizer regex named by tokenizer.ggml.pre (llama-bpe, qwen2, gpt-2);
//     control and user-defined tokens become added tokens.
// Special ids, add_bos/add_eos and tokenizer.chat_template (through the Jinja
// interpreter) come along.
#include <string>

#include "engine/model/gguf.h"
#include "engine/model/tokenizer_files.h"

namespace lwb {

// "llama-bpe, llama3, llama-v3, qwen2, gpt-2": the tokenizer.ggml.pre values understood.
const char* ggufSupportedPreTokenizers();

// Throws lwb::Error naming the file and key: unknown tokenizer.ggml.model or .pre,
// arrays of different lengths, ids outside the vocabulary.
TokenizerFiles ggufTokenizerFiles(const GgufFile& file);

}  // namespace lwb
