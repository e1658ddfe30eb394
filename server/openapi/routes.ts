import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Hono } from 'hono'
import type { AppEnv } from '#server/context.ts'
import { notFound } from '#server/http/errors.ts'
import { buildOpenApiDocument, type RouteEntry } from './document.ts'
import { operation } from './operation.ts'

/** Where the API's reference page and this document are served, under `/api`. */
export const DOCS_PATH = '/docs'

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

/**
 * The reference page's assets, served from `node_modules/swagger-ui-dist` (no CDN: this page must
 * work where the network reaches nothing else) and our own start-up script: the page has no inline
 * script, so it runs under the CSP of every other page (server/security/headers.ts).
 */
const ASSETS: Record<string, { type: string; file?: string; text?: string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'start.js': {
    type: 'text/javascript; charset=utf-8',
    // validatorUrl: null keeps Swagger UI from sending the document to its online validator;
    // filter: a box that narrows the page to the tags whose name holds what is typed.
    text: `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.json', document.baseURI).href,
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    filter: true,
  })
})
`,
  },
}

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Glow Rewards API reference</title>
    <base href="${DOCS_PATH.slice(1)}/" />
    <link rel="stylesheet" href="assets/swagger-ui.css" />
  </head>
  <body>
    <main id="reference"></main>
    <script src="assets/swagger-ui-bundle.js"></script>
    <script src="assets/start.js"></script>
  </body>
</html>
`

/**
 * `GET /openapi.json` (the OpenAPI 3.1 document of every route the app serves, built on first
 * request from `routes()`, the app's final route list) and `GET /docs` (Swagger UI rendering it).
 * Mounted under `/api`.
 */
export function openApiRoutes(routes: () => readonly RouteEntry[]) {
  let json: string | undefined
  const cache = new Map<string, Uint8Array>()
  return new Hono<AppEnv>()
    .get(
      '/openapi.json',
      operation({
        summary: 'This document',
        description:
          'The OpenAPI 3.1 description of this API, generated from the schemas the routes validate with.',
        tag: 'Reference',
        public: true,
        responses: { 200: { description: 'The OpenAPI document.', media: ['application/json'] } },
      }),
      (c) => {
        json ??= JSON.stringify(buildOpenApiDocument(routes()))
        return c.body(json, 200, { 'Content-Type': 'application/json; charset=utf-8' })
      },
    )
    .get(
      DOCS_PATH,
      operation({
        summary: 'Interactive reference',
        description: 'A page that renders this document (Swagger UI, served from this server).',
        tag: 'Reference',
        public: true,
        responses: { 200: { description: 'The reference page.', media: ['text/html'] } },
      }),
      (c) => c.html(PAGE),
    )
    .get(
      `${DOCS_PATH}/assets/:file`,
      operation({
        summary: 'Reference page assets',
        description: 'The scripts and stylesheet of the reference page.',
        tag: 'Reference',
        public: true,
        path: {
          file: { description: 'The asset file name.', schema: { type: 'string', maxLength: 64 } },
        },
        responses: {
          200: { description: 'The asset.', media: ['text/javascript', 'text/css'] },
          404: 'No such asset.',
        },
      }),
      async (c) => {
        const asset = Object.hasOwn(ASSETS, c.req.param('file'))
          ? ASSETS[c.req.param('file')]
          : undefined
        if (!asset) throw notFound('No such asset.')
        let body = cache.get(c.req.param('file'))
        if (!body) {
          body = asset.file
            ? new Uint8Array(await readFile(join(swaggerUiDir, asset.file)))
            : new TextEncoder().encode(asset.text ?? '')
          cache.set(c.req.param('file'), body)
        }
        return c.body(body as Uint8Array<ArrayBuffer>, 200, {
          'Content-Type': asset.type,
          'Cache-Control': 'public, max-age=3600',
        })
      },
    )
}
