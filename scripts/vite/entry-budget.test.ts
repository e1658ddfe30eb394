import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ENTRY_BUDGET, entryBreaches, signInPageBreaches } from './entry-budget.ts'
import { fakeChunk } from './fake-bundle.ts'

const root = process.cwd()
const chunk = (moduleIds: string[], code = 'export {}') => ({
  fileName: 'assets/index-abc.js',
  code,
  moduleIds,
})

describe('the entry chunk budget', () => {
  it('passes an entry of React, the router and the address checks', () => {
    const ids = [
      `${root}/node_modules/react-dom/cjs/react-dom-client.production.js`,
      `${root}/node_modules/@tanstack/router-core/dist/esm/router.js`,
      `${root}/domain/promotion-statuses.ts`,
      `${root}/src/routes/signin.tsx`,
      `${root}/src/public-route-tree.gen.ts`,
    ]
    expect(entryBreaches(chunk(ids), () => undefined)).toEqual([])
  })

  it('refuses the signed-in routes in the entry, naming them and who brought them in', () => {
    const ids = [
      `${root}/src/routes/_shell.tsx`,
      `${root}/src/routes/_shell.promotions.$promotionId.tsx`,
      `${root}/src/routeTree.gen.ts`,
    ]
    const breaches = entryBreaches(chunk(ids), () => `${root}/src/app/router.tsx`)
    expect(breaches).toEqual([
      "The entry chunk holds the signed-in routes (src/routes/_shell.tsx, src/routes/_shell.promotions.$promotionId.tsx, src/routeTree.gen.ts), imported by src/app/router.tsx: only the public pages' route tree (src/public-route-tree.gen.ts) belongs there; the whole tree is loaded by the router when a signed-in address is opened.",
    ])
  })

  it('names each package or schema module that only later pages need, with who brought it in', () => {
    const ids = [
      `${root}/node_modules/libphonenumber-js/es6/metadata.js`,
      `${root}/node_modules/libphonenumber-js/es6/AsYouType.js`,
      `${root}/domain/practice-data.ts`,
    ]
    const importers: Record<string, string> = {
      [`${root}/node_modules/libphonenumber-js/es6/metadata.js`]: `${root}/domain/phone.ts`,
      [`${root}/domain/practice-data.ts`]: `${root}/domain/promotions.ts`,
    }
    const breaches = entryBreaches(chunk(ids), (id) => importers[id])
    expect(breaches).toHaveLength(2)
    expect(breaches[0]).toMatch(
      /^The entry chunk holds libphonenumber-js \(imported by domain\/phone\.ts\), which only later pages need/,
    )
    expect(breaches[1]).toMatch(
      /^The entry chunk holds domain\/practice-data\.ts \(imported by domain\/promotions\.ts\)/,
    )
  })

  it('refuses an entry over its gzip budget, saying by how much', () => {
    // Random bytes do not compress: the gzip size is about the size.
    const code = randomBytes(ENTRY_BUDGET.maxGzipBytes + 2048).toString('latin1')
    const [breach] = entryBreaches(chunk([], code), () => undefined)
    expect(breach).toMatch(
      /^The entry chunk assets\/index-abc\.js is 1\d\d\.\d KB gzip, over its budget of 125 KB\.$/,
    )
  })

  it("refuses XState among the sign-in page's files on arrival, naming the file", () => {
    const chunk = fakeChunk
    const bundle = (signInImports: string[]) =>
      ({
        'assets/index.js': chunk('assets/index.js', { isEntry: true }),
        'assets/signin.js': chunk('assets/signin.js', {
          moduleIds: [`${root}/src/routes/signin.tsx?tsr-split=component`],
          imports: signInImports,
        }),
        'assets/xstate.esm.js': chunk('assets/xstate.esm.js', {
          moduleIds: [`${root}/node_modules/xstate/dist/xstate.esm.js`],
        }),
      }) as unknown as Parameters<typeof signInPageBreaches>[0]
    expect(signInPageBreaches(bundle([]))).toEqual([])
    const [breach] = signInPageBreaches(bundle(['assets/xstate.esm.js']))
    expect(breach).toMatch(
      /^The sign-in page loads xstate on arrival \(in assets\/xstate\.esm\.js\)/,
    )
  })
})
