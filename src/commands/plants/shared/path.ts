// Where a plant is, under the base URL: the spec's `{base_url}/plants/{id}`, for every verb on a plant.

/** The path of a plant under the base URL; `id` is a canonical int64 (ids/parse.ts), which needs no escaping. */
export function plantPath(id: string): string {
  return `/plants/${id}`;
}
