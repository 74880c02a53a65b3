// A promptfoo test generator: `tests: [{path: file://tests.mjs, config: {...}}]` calls the default
// export with the config; it may be async and returns test cases like those written inline.
export default async function unitConversions(config) {
  return config.metres.map((m) => ({
    description: `${m} metres in centimetres`,
    vars: { question: `How many centimetres are in ${m} metres?` },
    assert: [{ type: 'contains', value: String(m * 100) }],
  }));
}
