/** A minimal valid workflow module with the given title (and optional extra source). */
export function workflowSource(title: string, body = "return { ok: true };"): string {
  return [
    `export const title = ${JSON.stringify(title)};`,
    `export const description = "A test workflow.";`,
    `export const whenToUse = "In tests.";`,
    `export const phases = [{ key: "main", title: "Main" }];`,
    `export const args = { type: "object", properties: { n: { type: "integer", minimum: 1, default: 2 }, name: { type: "string" } }, required: ["name"], additionalProperties: false };`,
    `export default async function run(wf, args) { ${body} }`,
  ].join("\n");
}
