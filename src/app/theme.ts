import { type CSSVariablesResolver, createTheme, type MantineColorsTuple } from '@mantine/core'

/**
 * The brand colour, a deep teal, lightest to darkest. Shade 8 is the brand itself (the
 * `theme-color` of index.html); white text on shade 8 has a contrast of 8:1 and on shade 7 of
 * 6.2:1, both above WCAG AA's 4.5:1.
 */
export const glow: MantineColorsTuple = [
  '#e6f6f5',
  '#c3e9e6',
  '#9bd9d5',
  '#6fc6c0',
  '#48b2ac',
  '#2b9b95',
  '#16837e',
  '#0d6d69',
  '#0b5a5a',
  '#074444',
]

const systemFonts =
  "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif"

/**
 * The one Mantine theme of the portal: teal primary, Mantine's neutral greys,
 * red only for errors and green only for success, medium radius, the system font stack. Works in
 * both colour schemes: filled teal uses shade 8 in light and shade 7 in dark, and Mantine's light
 * variants switch to shade 9 text on tinted backgrounds (light) or shade 0 (dark).
 */
export const theme = createTheme({
  colors: { glow },
  primaryColor: 'glow',
  primaryShade: { light: 8, dark: 7 },
  defaultRadius: 'md',
  fontFamily: systemFonts,
  headings: { fontFamily: systemFonts, fontWeight: '650' },
  cursorType: 'pointer',
  // People who ask their system for less motion get no fades or slides (WCAG 2.3.3); the browser
  // tests ask for it too, so axe never looks at a dialog half faded in.
  respectReducedMotion: true,
  components: {
    Card: { defaultProps: { withBorder: true, shadow: 'sm', radius: 'md' } },
    Alert: { defaultProps: { variant: 'light' } },
    // Without the placeholder Mantine puts first in every menu (a focusable role=presentation
    // element, which axe refuses inside role=menu), opening a menu focuses its first item, as the
    // WAI-ARIA menu button pattern has it.
    Menu: { defaultProps: { withInitialFocusPlaceholder: false } },
    // A closed Select keeps no hidden list in the page: kept mounted, each list is positioned
    // against its input while the page first renders (a forced style calculation per Select and
    // a synchronous re-render), about 150 ms of main thread per wizard step at 4x CPU.
    Select: { defaultProps: { comboboxProps: { keepMounted: false } } },
  },
})

/**
 * Contrast fixes on top of Mantine's defaults so every text passes WCAG AA (4.5:1): Mantine's
 * dimmed grey (3.3:1 on white, 4:1 on the dark body), the red of field errors (3.3:1) and the
 * green of success-banner titles on their tint (3.8:1) are too light.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-green-light-color': '#1e6b31',
    // Orange text on its tint (a past-due membership's badge and alert): 5.9:1.
    '--mantine-color-orange-light-color': '#a63c06',
    // Field errors: Mantine's red 6 is 3.3:1 on white; red 9 is 5.5:1.
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
  },
})
