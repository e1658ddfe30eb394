import { describe, expect, it } from 'vitest'
import { fakeChunk } from './fake-bundle.ts'
import { routeFile, routePreloadTable } from './route-preloads.ts'

describe('route preloads', () => {
  it('turns file route names into address patterns and the route files on the way', () => {
    expect(routeFile('signin')).toEqual({ pattern: '^/signin/?$', files: ['signin'] })
    expect(routeFile('unsubscribe.$id')).toEqual({
      pattern: '^/unsubscribe/[^/]+/?$',
      files: ['unsubscribe.$id'],
    })
    expect(routeFile('_shell.dashboard')).toEqual({
      pattern: '^/dashboard/?$',
      files: ['_shell', '_shell.dashboard'],
    })
    expect(routeFile('_shell.personnel.index')).toEqual({
      pattern: '^/personnel/?$',
      files: ['_shell', '_shell.personnel.index'],
    })
    expect(routeFile('signup_.personnel.$id')).toEqual({
      pattern: '^/signup/personnel/[^/]+/?$',
      files: ['signup_.personnel.$id'],
    })
    expect(routeFile('404')).toEqual({ pattern: '^/404/?$', files: ['404'] })
    for (const none of ['__root', 'index', '$', '_shell']) expect(routeFile(none)).toBeNull()
  })

  it("lists each page's split chunks, their imports and CSS, without what the entry brings, and the route tree's chunk before a signed-in page's", () => {
    const chunk = fakeChunk
    const bundle = {
      'assets/index.js': chunk('assets/index.js', {
        isEntry: true,
        imports: ['assets/react.js'],
        moduleIds: ['/app/src/routes/signin.tsx', '/app/src/public-route-tree.gen.ts'],
        viteMetadata: { importedCss: new Set(['assets/index.css']) },
      }),
      'assets/react.js': chunk('assets/react.js', {}),
      'assets/signin.js': chunk('assets/signin.js', {
        moduleIds: ['/app/src/routes/signin.tsx?tsr-split=component'],
        imports: ['assets/react.js', 'assets/form.js'],
        viteMetadata: { importedCss: new Set(['assets/signin.css']) },
      }),
      'assets/form.js': chunk('assets/form.js', {}),
      // The whole route tree, with the signed-in routes' address checks, is a chunk of its own.
      'assets/tree.js': chunk('assets/tree.js', {
        moduleIds: [
          '/app/src/routes/_shell.tsx',
          '/app/src/routes/_shell.dashboard.tsx',
          '/app/src/routeTree.gen.ts',
        ],
        imports: ['assets/react.js', 'assets/schemas.js'],
      }),
      'assets/schemas.js': chunk('assets/schemas.js', {}),
      'assets/shell.js': chunk('assets/shell.js', {
        moduleIds: ['/app/src/routes/_shell.tsx?tsr-split=component'],
      }),
      'assets/dashboard.js': chunk('assets/dashboard.js', {
        moduleIds: ['/app/src/routes/_shell.dashboard.tsx?tsr-split=component'],
        imports: ['assets/form.js'],
      }),
      'index.html': { type: 'asset', fileName: 'index.html', source: '' },
    } as unknown as Parameters<typeof routePreloadTable>[0]
    expect(routePreloadTable(bundle)).toEqual([
      {
        pattern: '^/dashboard/?$',
        files: [
          '/assets/tree.js',
          '/assets/schemas.js',
          '/assets/shell.js',
          '/assets/dashboard.js',
          '/assets/form.js',
        ],
      },
      {
        pattern: '^/signin/?$',
        files: ['/assets/signin.js', '/assets/signin.css', '/assets/form.js'],
      },
    ])
  })
})
