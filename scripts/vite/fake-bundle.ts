/** A chunk of a build's output as the plugins read it, for their tests: `extra` overrides. */
export function fakeChunk(fileName: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'chunk',
    fileName,
    isEntry: false,
    imports: [],
    moduleIds: [],
    viteMetadata: { importedCss: new Set<string>() },
    ...extra,
  }
}
