// The glossary: every term the summary cards use, in plain words. One home for the text: the
// cards show a term's `line` when it is opened (term.js), and the build writes the glossary page,
// dist/glossary.html, from the same entries (scripts/glossary-page.mjs), which the service worker
// caches with the rest of the site. Each term is keyed by the report field its card shows
// (`attention.kv_heads`), which is also the `data-field` of the figure.

/**
 * @typedef {object} Term
 * @property {string} field  The report field (and `data-field`) the term names.
 * @property {string} term  The term as the glossary lists it.
 * @property {string} line  One plain sentence: what it is.
 * @property {string} [more]  What else helps to read the figure.
 */

/** @type {{section: string, terms: Term[]}[]} */
export const GLOSSARY = [
  {
    section: 'Model',
    terms: [
      {
        field: 'architecture',
        term: 'Architecture',
        line: 'The design of the network (llama, qwen2, gemma3, …): it tells llama.cpp which layers to build and which metadata keys to read.',
        more: 'Keys named after it (gemma3.context_length, gemma3.block_count, …) hold its figures. A file whose architecture llama.cpp does not know will not load.',
      },
      {
        field: 'name',
        term: 'Name',
        line: 'The model’s name as its maker wrote it (general.name); it can be anything, so do not rely on it.',
      },
      {
        field: 'size_label',
        term: 'Size label',
        line: 'The size the maker gives the model, in parameters: 7B is about 7 billion; 8x7B is 8 experts of about 7 billion each.',
      },
    ],
  },
  {
    section: 'Parameters',
    terms: [
      {
        field: 'parameters',
        term: 'Parameters (weights)',
        line: 'The numbers the model learned in training, all counted: the file is mostly these numbers.',
        more: 'More parameters usually means a more capable model, and one that needs more memory and time per token.',
      },
      {
        field: 'tensor_count',
        term: 'Tensors',
        line: 'The named arrays the weights are stored in, such as blk.0.attn_q.weight (layer 0’s attention queries).',
        more: 'Each tensor has a shape and a type (how its numbers are stored); blk.N. names the layer it belongs to.',
      },
      {
        field: 'active_parameters',
        term: 'Active parameters',
        line: 'The weights that work on each token: all of them in a dense model; in a mixture of experts, only the shared part and the experts a token is sent to.',
        more: 'Speed follows the active parameters; memory follows all of them, since every expert must be loaded.',
      },
    ],
  },
  {
    section: 'Quantization',
    terms: [
      {
        field: 'bits_per_weight',
        term: 'Bits per weight',
        line: 'How many bits the file spends on each weight, on average: 32 for F32, 16 for F16, 8.5 for Q8_0, 4.5 for Q4_K.',
        more: 'Fewer bits make a smaller, faster file that is a little less accurate. The average is over every tensor, so a few large tensors of another type (a token embedding kept at 8 bits in a small model) can pull it far from the file type’s own figure.',
      },
      {
        field: 'file_type',
        term: 'File type',
        line: 'The quantization recipe the file was made with (general.file_type), such as Q4_K_M: a name for the whole file, not the type of every tensor.',
        more: 'Q4_K_M stores most weights as Q4_K and some (attention values and feed-forward down in some layers, the output) in more bits, and keeps small tensors such as the norms in F32. The tensor types say what the file really holds.',
      },
      {
        field: 'tensor_types',
        term: 'Tensor types (actual types)',
        line: 'The types the tensors are really stored in, with how many tensors have each: what the file holds, whatever its file type says.',
        more: 'F32, F16 and BF16 are plain numbers; Q8_0, Q6_K, Q4_K, IQ4_XS and the like store blocks of weights with shared scales in fewer bits. The Tensor types panel shows each type’s share of the bytes.',
      },
      {
        field: 'tensor_bytes',
        term: 'Tensor data',
        line: 'The bytes all the tensors take: the file’s size without its header.',
      },
    ],
  },
  {
    section: 'Attention',
    terms: [
      {
        field: 'attention.kind',
        term: 'Attention kind (MHA, GQA, MQA, MLA)',
        line: 'How each layer looks back at earlier tokens, and so how much memory each token of context costs.',
        more: 'MHA (multi-head attention): each query head has its own key/value head. GQA (grouped-query attention): a group of query heads shares one key/value head, so the KV cache is that many times smaller. MQA (multi-query attention): all query heads share one. MLA (multi-head latent attention, DeepSeek): keys and values are stored compressed. Per layer: the layers differ, as in Gemma 4, whose sliding-window layers have more key/value heads than its global ones.',
      },
      {
        field: 'attention.heads',
        term: 'Heads (query heads)',
        line: 'How many attention heads each layer has: each looks at the context on its own and the results are combined.',
      },
      {
        field: 'attention.kv_heads',
        term: 'KV heads (key/value heads)',
        line: 'How many heads keep keys and values for every token in the KV cache; fewer KV heads mean a smaller cache and a longer context in the same memory.',
        more: 'When the counts differ between layers the card says how many layers have each count: “8 in 25 layers, 2 in 5” means 25 layers of 8 KV heads and 5 of 2.',
      },
      {
        field: 'attention.group_size',
        term: 'Group size',
        line: 'Query heads per KV head (heads ÷ KV heads): 1 in MHA; the larger it is, the smaller the KV cache.',
      },
      {
        field: 'attention.sliding_window',
        term: 'Sliding window',
        line: 'Some layers look only at the last this many tokens (local attention), so their share of the KV cache stays small however long the context.',
        more: 'Models such as Gemma mix these local layers with global ones that see the whole context.',
      },
      {
        field: 'attention.kv_lora_rank',
        term: 'KV LoRA rank',
        line: 'In latent attention (MLA), the size of the compressed vector kept per token and layer instead of full keys and values.',
      },
      {
        field: 'attention.key_length',
        term: 'Key / value length',
        line: 'The width of each key head and value head: the numbers each keeps per token.',
      },
    ],
  },
  {
    section: 'Experts',
    terms: [
      {
        field: 'experts',
        term: 'Mixture of experts',
        line: 'The feed-forward part of each layer is split into many experts, and a router sends each token to a few of them; a dense model uses all its weights for every token.',
      },
      {
        field: 'experts.count',
        term: 'Experts',
        line: 'How many experts each layer has.',
      },
      {
        field: 'experts.used',
        term: 'Experts used per token',
        line: 'How many experts the router picks for each token: only these do work for it.',
      },
      {
        field: 'experts.shared',
        term: 'Shared experts',
        line: 'Experts every token goes through, besides the ones the router picks.',
      },
    ],
  },
  {
    section: 'Shape',
    terms: [
      {
        field: 'context_length',
        term: 'Context length',
        line: 'The most tokens the model was trained to read at once, prompt and reply together.',
        more: 'llama.cpp can run it with a shorter context (-c), which needs less memory for the KV cache; the Will it fit panel works the memory out.',
      },
      {
        field: 'block_count',
        term: 'Layers',
        line: 'The transformer blocks stacked one after another; each has attention and a feed-forward network.',
      },
      {
        field: 'embedding_length',
        term: 'Embedding length',
        line: 'The width of the model: how many numbers stand for each token between layers.',
      },
      {
        field: 'feed_forward_length',
        term: 'Feed-forward length',
        line: 'The inner width of each layer’s feed-forward network, usually a few times the embedding length.',
      },
      {
        field: 'rope.freq_base',
        term: 'RoPE base',
        line: 'The base frequency of the rotary position embedding, the way the model knows where each token is; larger bases suit longer contexts.',
        more: 'Llama 2 uses 10,000, Llama 3 500,000, Gemma 3 1,000,000.',
      },
    ],
  },
  {
    section: 'Tokenizer',
    terms: [
      {
        field: 'vocab_size',
        term: 'Vocabulary',
        line: 'The tokens text is cut into before the model reads it, each with a number (its id).',
        more: 'A larger vocabulary needs fewer tokens for the same text, and makes the token embedding, which has a row per token, larger.',
      },
      {
        field: 'tokenizer_model',
        term: 'Tokenizer model',
        line: 'How text is cut into tokens: llama is SentencePiece, gpt2 byte-level BPE, bert WordPiece, t5 Unigram.',
      },
      {
        field: 'tokenizer_pre',
        term: 'Pre-tokenizer',
        line: 'The rules llama.cpp uses to split text into words and numbers before the tokenizer cuts them into tokens; each model family has its own.',
      },
    ],
  },
  {
    section: 'File',
    terms: [
      {
        field: 'file_size',
        term: 'File size',
        line: 'The file’s bytes on disk: its header, then the tensor data.',
      },
      {
        field: 'split.count',
        term: 'Shards',
        line: 'A split model is stored in several files (NAME-00001-of-00003.gguf, …) that llama.cpp loads together, given the first.',
      },
      {
        field: 'version',
        term: 'GGUF version',
        line: 'The version of the file format: 3 today; llama.cpp still reads 2, but no longer 1.',
      },
      {
        field: 'endianness',
        term: 'Byte order',
        line: 'How numbers are laid out in bytes: little-endian on nearly every computer; a big-endian file only loads on a big-endian machine.',
      },
      {
        field: 'alignment',
        term: 'Alignment',
        line: 'Each tensor’s data starts at a multiple of this many bytes (32 unless the file says), so it can be read straight from disk into memory.',
      },
    ],
  },
  {
    section: 'Header',
    terms: [
      {
        field: 'header_size',
        term: 'Header',
        line: 'Everything before the weights: the metadata key-value pairs and the list of tensors. The viewer reads only this.',
        more: 'In a split model, each shard has a header of its own; the card gives their sizes together.',
      },
      {
        field: 'data_offset',
        term: 'Data starts at',
        line: 'The byte where the tensor data begins: the end of the header, rounded up to the alignment.',
        more: 'In a split model, each shard’s data starts after that shard’s own header; the card gives the first shard’s.',
      },
      {
        field: 'bytes_read',
        term: 'Read to show it',
        line: 'How much of the file this page read to show it: the header only, in this tab. Nothing is uploaded.',
      },
      {
        field: 'kv_count',
        term: 'Key-value pairs',
        line: 'The metadata entries: the architecture and its figures, the tokenizer, the chat template and more. The Metadata panel lists them all.',
      },
    ],
  },
  {
    section: 'What the file is',
    terms: [
      {
        field: 'kind',
        term: 'What this file is',
        line: 'GGUF files hold more than models: a vocabulary alone, a LoRA adapter, an importance matrix, a multimodal projector or a control vector. general.type says which; a file that does not say is a model.',
        more: 'Only a model (or its vocabulary) is loaded on its own; the others are loaded with a model (--lora, --mmproj, --control-vector) or used to make one (llama-quantize --imatrix).',
      },
      {
        field: 'capabilities.names',
        term: 'What it can do',
        line: 'What llama.cpp can use the model for, read from the file: chat (a chat template), tools and thinking (what the template takes), fill-in-the-middle (its tokens), embeddings (a pooling type), seeing or hearing (a projector beside it).',
        more: 'Each line names the key or file that says so; what the file does not say cannot be shown.',
      },
    ],
  },
];

/** The terms by report field. */
const BY_FIELD = new Map(GLOSSARY.flatMap((s) => s.terms.map((t) => [t.field, t])));

/** The term for report field `field`, or undefined when the glossary has none. */
export function termOf(field) {
  return BY_FIELD.get(field);
}

/** The glossary page's anchor of a term: `attention.kv_heads` → `attention-kv-heads`. */
export function anchorOf(field) {
  return field.replace(/[^a-z0-9]+/gi, '-');
}

/** The glossary page, beside this module (on the site and in the npm package). */
export const GLOSSARY_PAGE = new URL('./glossary.html', import.meta.url);
