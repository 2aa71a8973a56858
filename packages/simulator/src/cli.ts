/** The `breakwater` command. */
export async function main(argv: readonly string[]): Promise<void> {
  void argv;
  throw new Error('breakwater simulate: not built yet');
}
