import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { checkMantineStyles } from './scripts/vite/mantine-styles.ts'

/**
 * The patient's wallet (wallet.html, src/wallet/): a second, separate build into the same dist/
 * (scripts/lib/build.ts runs it after the staff app's), so that none of the staff app's chunks,
 * route tree or entry chunk grouping reaches it: its first load is React, Mantine's core, ky,
 * valibot and its own screens. Its files are content-hashed under assets/ like the app's.
 */
export default defineConfig({
  plugins: [react(), checkMantineStyles()],
  // public/ is copied by the staff app's build already.
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: { wallet: 'wallet.html' },
      output: {
        entryFileNames: 'assets/wallet-[hash].js',
        chunkFileNames: 'assets/wallet-[name]-[hash].js',
        assetFileNames: 'assets/wallet-[name]-[hash][extname]',
      },
    },
  },
})
