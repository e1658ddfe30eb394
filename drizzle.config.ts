import { defineConfig } from 'drizzle-kit'

// `npm run db:generate` writes a new SQL migration for changes to the schema; the server applies
// pending migrations at start (server/db/client.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/schema.ts',
  out: './server/db/migrations',
})
