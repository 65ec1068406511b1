//! The preview's renders: the chat templates of the phi-3, command-r and stablelm fixtures, and
//! Gemma 3's, for the sample conversation with and without the generation prompt, against the
//! formats the models' authors document; then hostile templates, which must stop within the bounds
//! with a message that says why.

use gguf_core::Header;
use gguf_core::chat_template::chat_templates;
use gguf_core::tokenizer::Tokenizer;
use gguf_template::{
    MAX_TAG_TOKENS, Message, Options, RECURSION_LIMIT, RenderError, SAMPLE_CONVERSATION, render,
};
use gguf_test_support::{fixture, gemma, read_header};

/// The template named `name` (`None`: `tokenizer.chat_template`) of a header.
fn template<'h>(h: &'h Header, name: Option<&str>) -> &'h str {
    let t = chat_templates(h)
        .into_iter()
        .find(|t| t.name == name.map(str::as_bytes))
        .unwrap();
    std::str::from_utf8(t.text).unwrap()
}

/// Renders with the file's own bos and eos texts, as the preview does.
fn render_file(h: &Header, template: &str, add_generation_prompt: bool) -> Result<String, RenderError> {
    let t = Tokenizer::new(h);
    let text = |role| std::str::from_utf8(t.special_text(role).unwrap_or_default()).unwrap();
    let options = Options {
        bos_token: text("bos"),
        eos_token: text("eos"),
        add_generation_prompt,
        now: 0,
    };
    render(template, &SAMPLE_CONVERSATION, &options)
}

fn real(name: &str) -> Header {
    read_header(&fixture(&format!("real/{name}"))).0.unwrap()
}

#[test]
fn the_conversation() {
    let roles: Vec<&str> = SAMPLE_CONVERSATION.iter().map(|m| m.role).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
}

/// Phi-3 mini's documented format: `<|user|>\n{prompt}<|end|>\n<|assistant|>\n`, after `<s>`. This
/// template has no place for a system prompt (it drops it) and always opens the assistant's turn
/// after a user turn, so the generation prompt changes nothing.
#[test]
fn phi_3() {
    let h = real("ggml-vocab-phi-3.gguf");
    let expected = "<s><|user|>\nWhat is a GGUF file?<|end|>\n<|assistant|>\n\
        A single file holding a model's weights and metadata.<|end|>\n\
        <|user|>\nHow do I look inside one?<|end|>\n<|assistant|>\n";
    for add_generation_prompt in [false, true] {
        assert_eq!(
            render_file(&h, template(&h, None), add_generation_prompt).unwrap(),
            expected
        );
    }
}

/// Command-R's documented format: `<BOS_TOKEN>`, then turns
/// `<|START_OF_TURN_TOKEN|><|ROLE_TOKEN|>{text}<|END_OF_TURN_TOKEN|>` for SYSTEM, USER and CHATBOT,
/// and `<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>` to let the model answer.
#[test]
fn command_r() {
    let h = real("ggml-vocab-command-r.gguf");
    let turns = "<BOS_TOKEN><|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>You are a helpful assistant.<|END_OF_TURN_TOKEN|>\
        <|START_OF_TURN_TOKEN|><|USER_TOKEN|>What is a GGUF file?<|END_OF_TURN_TOKEN|>\
        <|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>A single file holding a model's weights and metadata.<|END_OF_TURN_TOKEN|>\
        <|START_OF_TURN_TOKEN|><|USER_TOKEN|>How do I look inside one?<|END_OF_TURN_TOKEN|>";
    let answer = "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
    let default = template(&h, None);
    assert_eq!(render_file(&h, default, false).unwrap(), turns);
    assert_eq!(
        render_file(&h, default, true).unwrap(),
        format!("{turns}{answer}")
    );

    // The named templates: the same turns inside longer system preambles (no tools or documents
    // are given, so those lists are empty).
    for name in ["tool_use", "rag"] {
        let text = template(&h, Some(name));
        let without = render_file(&h, text, false).unwrap();
        let with = render_file(&h, text, true).unwrap();
        assert!(
            without.starts_with("<BOS_TOKEN><|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|># Safety Preamble\n"),
            "{name}"
        );
        assert!(
            without.contains("\n# User Preamble\nYou are a helpful assistant."),
            "{name}"
        );
        assert!(
            without.contains(
                "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>How do I look inside one?<|END_OF_TURN_TOKEN|>"
            ),
            "{name}"
        );
        assert!(without.ends_with("<|END_OF_TURN_TOKEN|>"), "{name}");
        assert_eq!(with, format!("{without}{answer}"), "{name}");
    }
    assert!(
        render_file(&h, template(&h, Some("tool_use")), false)
            .unwrap()
            .contains("## Available Tools\nHere is a list of tools")
    );
    assert!(
        render_file(&h, template(&h, Some("rag")), false)
            .unwrap()
            .contains("<results></results>")
    );
}

/// StableLM 2 Zephyr's documented format: `<|user|>\n{prompt}<|endoftext|>\n<|assistant|>\n`, the
/// eos text closing every turn. The template's line breaks after `{% … %}` tags disappear
/// (trim_blocks) and those after `{{ … }}` stay, as in Hugging Face's renderer.
#[test]
fn stablelm() {
    let h = real("ggml-vocab-stablelm.gguf");
    let turns = "<|system|>\nYou are a helpful assistant.<|endoftext|>\n\
        <|user|>\nWhat is a GGUF file?<|endoftext|>\n\
        <|assistant|>\nA single file holding a model's weights and metadata.<|endoftext|>\n\
        <|user|>\nHow do I look inside one?<|endoftext|>\n";
    let text = template(&h, None);
    assert_eq!(render_file(&h, text, false).unwrap(), turns);
    assert_eq!(
        render_file(&h, text, true).unwrap(),
        format!("{turns}<|assistant|>\n")
    );
}

/// Gemma 3's chat template, as google/gemma-3-*-it ship it (tokenizer_config.json). The Gemma file
/// among the fixtures is the base model and carries none, so the preview has nothing to render for
/// it; this is what the instruction-tuned model's file would carry.
const GEMMA_3_TEMPLATE: &str = r#"{{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
    {%- if messages[0]['content'] is string -%}
        {%- set first_user_prefix = messages[0]['content'] + '

' -%}
    {%- else -%}
        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '

' -%}
    {%- endif -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set first_user_prefix = "" -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
        {{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}
    {%- endif -%}
    {%- if (message['role'] == 'assistant') -%}
        {%- set role = "model" -%}
    {%- else -%}
        {%- set role = message['role'] -%}
    {%- endif -%}
    {{ '<start_of_turn>' + role + '
' + (first_user_prefix if loop.first else "") }}
    {%- if message['content'] is string -%}
        {{ message['content'] | trim }}
    {%- elif message['content'] is iterable -%}
        {%- for item in message['content'] -%}
            {%- if item['type'] == 'image' -%}
                {{ '<start_of_image>' }}
            {%- elif item['type'] == 'text' -%}
                {{ item['text'] | trim }}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {{ raise_exception("Invalid content type") }}
    {%- endif -%}
    {{ '<end_of_turn>
' }}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{'<start_of_turn>model
'}}
{%- endif -%}
"#;

/// Gemma 3's documented format: `<bos><start_of_turn>user\n{system}\n\n{prompt}<end_of_turn>\n
/// <start_of_turn>model\n…` — no system role: the system prompt opens the first user turn.
#[test]
fn gemma_3() {
    let h = read_header(&gemma()).0.unwrap();
    assert!(
        chat_templates(&h).is_empty(),
        "the base model carries no chat template"
    );
    let turns = "<bos><start_of_turn>user\nYou are a helpful assistant.\n\nWhat is a GGUF file?<end_of_turn>\n\
        <start_of_turn>model\nA single file holding a model's weights and metadata.<end_of_turn>\n\
        <start_of_turn>user\nHow do I look inside one?<end_of_turn>\n";
    assert_eq!(render_file(&h, GEMMA_3_TEMPLATE, false).unwrap(), turns);
    assert_eq!(
        render_file(&h, GEMMA_3_TEMPLATE, true).unwrap(),
        format!("{turns}<start_of_turn>model\n")
    );

    // Roles out of order: the template's own exception, with its line.
    let out_of_order = [SAMPLE_CONVERSATION[1], SAMPLE_CONVERSATION[1]];
    let options = Options {
        bos_token: "<bos>",
        eos_token: "<eos>",
        add_generation_prompt: true,
        now: 0,
    };
    let e = render(GEMMA_3_TEMPLATE, &out_of_order, &options).unwrap_err();
    assert_eq!(
        e.message,
        "invalid operation: the template raised an exception: Conversation roles must alternate user/assistant/user/assistant/..."
    );
    assert_eq!(e.line, Some(19));
}

fn run(template: &str) -> Result<String, RenderError> {
    let options = Options {
        bos_token: "<s>",
        eos_token: "</s>",
        add_generation_prompt: true,
        now: 0,
    };
    render(template, &SAMPLE_CONVERSATION, &options)
}

fn error(template: &str) -> RenderError {
    run(template).expect_err(template)
}

const OUT_OF_FUEL: &str = "stopped: the template used up its fuel (1000000 units of instructions and data), as an endless loop would";

#[test]
fn endless_loops_and_memory_bombs_run_out_of_fuel() {
    let loops = "{% for m in messages %}\n{% for i in range(100000) %}{% for j in range(100000) %}{{ m.role }}{% endfor %}{% endfor %}{% endfor %}";
    assert_eq!(
        error(loops),
        RenderError {
            message: OUT_OF_FUEL.into(),
            line: Some(2)
        }
    );
    // Doubling a string: a few instructions, but data is fuel too.
    let doubling = "{% set ns = namespace(s='0123456789') %}\n{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}";
    assert_eq!(
        error(doubling),
        RenderError {
            message: OUT_OF_FUEL.into(),
            line: Some(2)
        }
    );
    assert_eq!(error("{{ 'x' * 100000000 }}").message, OUT_OF_FUEL);
    // A sequence repeated 10^8 times is one instruction and costs nothing until walked; printing
    // it is charged per item up front.
    assert_eq!(error("{{ [0] * 100000000 }}").message, OUT_OF_FUEL);
    // What fits in the budget renders.
    assert_eq!(
        run("{% for i in range(1000) %}.{% endfor %}").unwrap().len(),
        1000
    );
}

/// `join` and `format` are charged for their result before they build it (issue 18, finding 6:
/// the first template here reached 6.2 GB in the CLI before its time limit).
#[test]
fn join_and_format_are_charged_before_they_build() {
    let stopped = |template: &str, filter: &str| {
        let e = error(template);
        assert!(
            e.message.starts_with(OUT_OF_FUEL) && e.message.contains(&format!("(`{filter}` would make ")),
            "{template}: {}",
            e.message
        );
    };
    stopped("{{ (['x' * 1000000] * 9000)|join|length }}", "join");
    stopped("{{ (['x' * 1000000] * 9000)|join(d='')|length }}", "join");
    // Items that are not strings are measured by their text, no further than the fuel pays.
    stopped("{{ ([['x' * 100000] * 1000] * 1000)|join|length }}", "join");
    stopped(
        "{{ ('%s' * 1000)|format(*(['x' * 100000] * 1000))|length }}",
        "format",
    );
    stopped("{{ '%-900000000s'|format('x')|length }}", "format");
    stopped("{{ '%.900000000f'|format(1.5)|length }}", "format");
    // What real templates do with them renders as before.
    assert_eq!(run("{{ ['a', 'b', 'c']|join(', ') }}").unwrap(), "a, b, c");
    assert_eq!(run("{{ [1, 2]|join }}").unwrap(), "12");
    assert_eq!(
        run("{{ [{'n': 'x'}, {'n': 'y'}]|join('-', attribute='n') }}").unwrap(),
        "x-y"
    );
    assert_eq!(run("{{ '%s=%05d'|format('n', 42) }}").unwrap(), "n=00042");
    // Measuring does not use up what it measures: lazy results and Python's views join whole.
    assert_eq!(
        run("{{ [{'n': 'x'}, {'n': 'y'}]|map(attribute='n')|join(',') }}").unwrap(),
        "x,y"
    );
    assert_eq!(
        run("{{ {'a': 1, 'b': 2}.items()|map('first')|join }}").unwrap(),
        "ab"
    );
    assert_eq!(
        run("{{ messages|selectattr('role', 'eq', 'user')|map(attribute='role')|join(' ') }}").unwrap(),
        "user user"
    );
}

#[test]
fn deep_recursion_stops_at_the_limit() {
    let message = format!(
        "stopped: the template nests too deeply (recursion limit exceeded); a render may nest {RECURSION_LIMIT} levels"
    );
    let recursive_macro = "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n{{ f(0) }}";
    assert_eq!(error(recursive_macro).message, message);
    let nested_loop = "{% for m in messages recursive %}{{ loop([m, m]) }}{% endfor %}";
    assert_eq!(error(nested_loop).message, message);
    let deep_expression = format!("{{{{ {}1{} }}}}", "(".repeat(400), ")".repeat(400));
    assert_eq!(
        error(&deep_expression).message,
        format!(
            "stopped: the template nests too deeply (template exceeds maximum recursion limits); a render may nest {RECURSION_LIMIT} levels"
        )
    );
    // Ten levels are fine.
    assert_eq!(run("{% macro f(n) %}{% if n < 10 %}{{ f(n + 1) }}{% else %}{{ n }}{% endif %}{% endmacro %}{{ f(0) }}").unwrap(), "10");
}

/// Chains the engine parses one level per link, which its own limit does not count: a tag longer
/// than MAX_TAG_TOKENS is refused before parsing, and the longest allowed ones, inside as many
/// nested blocks as the parser allows, render without overflowing this test thread's 2 MiB stack.
#[test]
fn long_chains_are_refused_before_they_overflow_the_stack() {
    /// A chain of about `n` tokens.
    type Chain = fn(usize) -> String;
    let chains: [(&str, Chain); 5] = [
        ("not", |n| format!("{}true", "not ".repeat(n))),
        ("minus", |n| format!("{}1", "-".repeat(n))),
        ("plus", |n| format!("1{}", " + 1".repeat(n / 2))),
        ("filters", |n| format!("1{}", "|string".repeat(n / 2))),
        ("attributes", |n| format!("messages{}", ".x".repeat(n / 2))),
    ];
    for (name, chain) in chains {
        let over = format!("{{{{ bos_token }}}}\n{{{{ {} }}}}", chain(MAX_TAG_TOKENS + 2));
        assert_eq!(error(&over).line, Some(2), "{name}: {}", error(&over).message);
        assert!(
            error(&over).message.starts_with("stopped: a tag holds 20"),
            "{name}: {}",
            error(&over).message
        );
        let allowed = format!(
            "{}{{{{ {} }}}}{}",
            "{% if true %}".repeat(40),
            chain(MAX_TAG_TOKENS - 2),
            "{% endif %}".repeat(40)
        );
        match run(&allowed) {
            Ok(_) => {}
            Err(e) => assert!(e.message.starts_with("undefined value"), "{name}: {}", e.message),
        }
    }
}

#[test]
fn object_internals_do_not_exist() {
    let cases = [
        (
            "{{ ''.__class__.__mro__[1].__subclasses__() }}",
            "`.__class__.__mro__`",
        ),
        (
            "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
            "`cycler.__init__`",
        ),
        (
            "{{ self._TemplateReference__context.joiner.__init__.__globals__ }}",
            "`self._TemplateReference__context`",
        ),
        ("{{ messages.__class__.__base__ }}", "`.__class__.__base__`"),
    ];
    for (template, quoted) in cases {
        let e = error(template);
        assert_eq!(
            e.message,
            format!(
                "undefined value: {quoted} cannot be used here: Python object internals do not exist in this sandbox"
            ),
            "{template}"
        );
        assert_eq!(e.line, Some(1));
    }
    // Reaching for them without using them gives nothing.
    assert_eq!(
        run("[{{ ''.__class__ }}][{{ messages|attr('__class__') }}]").unwrap(),
        "[][]"
    );
    assert_eq!(
        error("{{ namespace.__init__() }}").message,
        "unknown method: plain object has no method named __init__"
    );
}

#[test]
fn no_files_and_no_python() {
    for (template, message) in [
        (
            "{% include 'secrets.txt' %}",
            "syntax error: unknown statement include",
        ),
        (
            "{% import 'os' as os %}",
            "syntax error: unknown statement import",
        ),
        (
            "{% extends '/etc/passwd' %}",
            "syntax error: unknown statement extends",
        ),
        ("{% from 'x' import y %}", "syntax error: unknown statement from"),
        ("{{ lipsum() }}", "unknown function: lipsum is unknown"),
        (
            "{{ range(1000000000)|length }}",
            "invalid operation: range has too many elements",
        ),
    ] {
        assert_eq!(error(template).message, message, "{template}");
    }
}

#[test]
fn errors_carry_the_line() {
    let e = error("{{ bos_token }}\n{% for m in messages %}\n{{ m.content }\n{% endfor %}");
    assert_eq!(e.line, Some(3));
    assert!(e.message.starts_with("syntax error: "), "{}", e.message);
    assert_eq!(e.to_string(), format!("line 3: {}", e.message));
}

#[test]
fn python_methods_and_filters_real_templates_use() {
    let template = "{{ messages[0].content.strip().upper() }}|{{ messages[1]['content'].startswith('What') }}|\
        {{ '  x  '.lstrip() }}|{{ 'a,b'.split(',') }}|{{ {'k': 1}.items()|list }}|{{ messages[3].content|tojson }}|\
        {% for m in messages %}{% if loop.index > 2 %}{% break %}{% endif %}{{ m.role }} {% endfor %}";
    assert_eq!(
        run(template).unwrap(),
        "YOU ARE A HELPFUL ASSISTANT.|True|x  |['a', 'b']|[('k', 1)]|\"How do I look inside one?\"|system user "
    );
    let only: [Message<'_>; 1] = [Message {
        role: "user",
        content: "hi",
    }];
    let options = Options {
        bos_token: "",
        eos_token: "",
        add_generation_prompt: false,
        now: 0,
    };
    assert_eq!(
        render(
            "{{ messages|length }}{{ add_generation_prompt }}{{ bos_token }}",
            &only,
            &options
        )
        .unwrap(),
        "1False"
    );
}

/// `+` and `~` as llama.cpp computes them: text joined with a missing value is the text, a string
/// plus a number is text, two lists are one; a runaway list is stopped by the fuel.
#[test]
fn operators_as_llama_cpp() {
    let options = Options {
        bos_token: "",
        eos_token: "",
        add_generation_prompt: false,
        now: 0,
    };
    let run = |t: &str| render(t, &SAMPLE_CONVERSATION[..1], &options);
    assert_eq!(
        run("{% set tool = {} %}{{ 'def ' + tool.name + '()' }}|{{ 'n' + none }}|{{ 'x' + 1 + 'y' + 2.5 + true }}|{{ 1 + 2 }}|{{ 1.5 + 1 }}|{{ ([1] + [2])|length }}|{{ x ~ 'a' }}|{% set n = none %}{{ n ~ 'b' }}|{{ tool.parameter_definitions.items()|length }}").unwrap(),
        "def ()|n|x1y2.5True|3|2.5|2|a|b|0"
    );
    assert!(
        run("{{ none + 1 }}")
            .unwrap_err()
            .message
            .contains("cannot use + on null values")
    );
    assert!(
        run("{% set a = 1 %}{{ a ~ 2 }}")
            .unwrap_err()
            .message
            .contains("cannot use ~ on two numbers")
    );
    let e = run("{% set z = [0] %}{{ (z * 100000000 + [1])|length }}").unwrap_err();
    assert!(
        e.message.starts_with("stopped: the template used up its fuel"),
        "{}",
        e.message
    );
}
