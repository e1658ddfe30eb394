import type { Plugin } from 'vite'

const COMPONENT_CLASSES = /@mantine[/\\]core[/\\]esm[/\\].*[/\\]([A-Za-z]+)\.module\.mjs$/
const COMPONENT_STYLES = /@mantine[/\\]core[/\\]styles[/\\]([A-Za-z]+)\.css$/

/**
 * The Mantine style sheets a bundle lacks: for every Mantine component module in `moduleIds`
 * (each one's classes come from a `*.module.mjs`), its `@mantine/core/styles/<Name>.css` must be
 * among `moduleIds` too. Returns the missing file names, sorted.
 */
export function missingMantineStyles(moduleIds: Iterable<string>): string[] {
  const needed = new Set<string>()
  const imported = new Set<string>()
  for (const id of moduleIds) {
    const component = COMPONENT_CLASSES.exec(id)?.[1]
    if (component) needed.add(component)
    const styles = COMPONENT_STYLES.exec(id)?.[1]
    if (styles) imported.add(styles)
  }
  return [...needed]
    .filter((name) => !imported.has(name))
    .map((name) => `${name}.css`)
    .sort()
}

/**
 * Vite plugin: fails the build when the app uses a Mantine component whose style sheet
 * src/app/mantine-styles.ts does not import (the app loads per-component styles, not the whole
 * styles.css, so such a component would render unstyled).
 */
export function checkMantineStyles(): Plugin {
  return {
    name: 'glow:mantine-styles',
    // The client bundle only: the prerender's server bundle has neither style sheets nor pages.
    apply: (config, { command }) => command === 'build' && !config.build?.ssr,
    // After tree-shaking: Mantine's index names every component, the chunks hold the used ones.
    generateBundle(_options, bundle) {
      const missing = missingMantineStyles(
        Object.values(bundle).flatMap((item) => (item.type === 'chunk' ? item.moduleIds : [])),
      )
      if (missing.length) {
        this.error(
          `Mantine components are used without their styles: add ${missing
            .map((file) => `'@mantine/core/styles/${file}'`)
            .join(', ')} to src/app/mantine-styles.ts (in the order of @mantine/core/styles.css).`,
        )
      }
    },
  }
}
