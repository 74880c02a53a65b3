// Narrowing parsed data (JSON, YAML, a provider's reply) before reading its fields.

/** Whether a value is a plain mapping: an object that is neither null nor a list. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
