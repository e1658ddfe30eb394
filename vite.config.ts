import { tanstackRouter, tanstackRouterGenerator } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'
import { entryBudget } from './scripts/vite/entry-budget.ts'
import { checkMantineStyles } from './scripts/vite/mantine-styles.ts'
import { routePreloads } from './scripts/vite/route-preloads.ts'

/**
 * The route files of the signed-in areas (`_shell.*`): their routes are not in the public pages'
 * route tree, so a signed-in page added costs the sign-in page nothing.
 */
const SIGNED_IN_ROUTE_FILES = '^_shell'

/** The modules of {@link defineConfig}'s `Input` chunk. */
const MANTINE_INPUT_FOUNDATION =
  /node_modules[\\/]@mantine[\\/](core[\\/]esm[\\/](components[\\/](Input|InputBase|TextInput)[\\/]|components[\\/]Checkbox[\\/]CheckIcon\.mjs|utils[\\/]InlineInput[\\/])|hooks[\\/]esm[\\/]use-uncontrolled)/

const apiPort = process.env.API_PORT ?? '3001'

/**
 * `npm run dev`: the patient wallet's addresses (`/wallet/{practiceId}…`) open its own page,
 * wallet.html (built for production by vite.wallet.config.ts, and served by server/static.ts).
 */
function walletDevPage(): Plugin {
  return {
    name: 'glow:wallet-dev-page',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use((request, _response, next) => {
        // An address with no practice too (`/wallet`): the wallet then says the link is not valid.
        if (request.url && /^\/wallet(\/[^.]*)?(\?.*)?$/.test(request.url)) {
          request.url = '/wallet.html'
        }
        next()
      })
    },
  }
}

export default defineConfig({
  plugins: [
    // The router plugin must come before react(): it generates src/routeTree.gen.ts and splits route code.
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      codeSplittingOptions: {
        // A route's loader (with the API modules and schemas it imports) travels with its view,
        // not in the entry chunk that every page downloads first.
        defaultBehavior: [
          ['loader', 'component', 'pendingComponent'],
          ['errorComponent'],
          ['notFoundComponent'],
        ],
      },
    }),
    // The public pages' own tree (every route file outside the signed-in areas), which the entry
    // chunk holds; the whole tree above arrives with the first signed-in page (src/app/router.tsx).
    tanstackRouterGenerator({
      target: 'react',
      routeFileIgnorePattern: SIGNED_IN_ROUTE_FILES,
      generatedRouteTree: './src/public-route-tree.gen.ts',
    }),
    react(),
    routePreloads(),
    checkMantineStyles(),
    entryBudget(),
    walletDevPage(),
  ],
  server: {
    proxy: {
      '/api': { target: `http://127.0.0.1:${apiPort}`, changeOrigin: false },
      // The pages a patient opens from an e-mail, and their script, are the server's
      // (server/modules/promotions/page-routes.ts).
      '^/((unsubscribe|offers)/[^/]+|assets/unsubscribe-page-[\\w-]+\\.js)$': {
        target: `http://127.0.0.1:${apiPort}`,
        changeOrigin: false,
      },
    },
  },
  build: {
    outDir: 'dist',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    // Every browser we support knows `<link rel="modulepreload">`: no polyfill in the entry chunk.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // Everything the entry imports statically (React, the router, Mantine's core, the
            // route tree) is needed before the first paint of any page, so it ships as one chunk:
            // one request instead of a dozen small ones, and one gzip dictionary. Route code and
            // what only some routes use stay in automatic chunks, fetched with their route.
            { name: 'app', tags: ['$initial'] },
            // Mantine's input foundation (the input and its wrapper, the text input, the inline
            // input and check icon of checkboxes and radios): every form page needs it whole, and
            // as one file it costs /signin 1.3 KB gzip less than as six, no page more than 0.2 KB.
            { name: 'Input', test: MANTINE_INPUT_FOUNDATION },
          ],
        },
      },
    },
  },
})
