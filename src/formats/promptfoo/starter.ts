// `assay init`: a small promptfoo config that runs offline at once, with the echo provider.
import type { Starter } from '../types.js';

const CONFIG = `# A starter promptfoo config, written by \`assay init\`. Run it with \`assay eval\`.
# The echo provider answers with the prompt itself, so this runs offline at once; replace it with
# a real model, e.g. openai:gpt-4o-mini (set OPENAI_API_KEY) or ollama:chat:llama3.2.
description: My first assay suite

prompts:
  - 'Write a one-line greeting for {{name}}, who works as a {{job}}.'

providers:
  - echo

defaultTest:
  assert:
    # Every answer stays short.
    - type: javascript
      value: output.length < 300

tests:
  - vars: {name: Ada, job: mathematician}
    assert:
      - type: contains
        value: Ada
  - vars: {name: Grace, job: programmer}
    assert:
      - type: icontains
        value: PROGRAMMER
      - type: not-contains
        value: As an AI language model
  - vars: {name: Katherine, job: physicist}
    assert:
      - type: regex
        value: '\\bKatherine\\b'
`;

export const starter: Starter = { files: { 'promptfooconfig.yaml': CONFIG }, evalArgs: [] };
