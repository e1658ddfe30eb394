import { describe, expect, it } from 'vitest'
import { missingMantineStyles } from './mantine-styles.ts'

const core = '/app/node_modules/@mantine/core'

describe('Mantine styles check', () => {
  it('names the style sheet of each Mantine component used without one', () => {
    expect(
      missingMantineStyles([
        `${core}/esm/components/Button/Button.module.mjs`,
        `${core}/esm/components/Checkbox/CheckboxIndicator/CheckboxIndicator.module.mjs`,
        `${core}/esm/utils/InlineInput/InlineInput.module.mjs`,
        `${core}/esm/components/Button/Button.mjs`,
        `${core}/styles/Button.css`,
        '/app/src/ui/public-page.module.css',
      ]),
    ).toEqual(['CheckboxIndicator.css', 'InlineInput.css'])
  })

  it('is content when every component has its styles', () => {
    expect(
      missingMantineStyles([
        `${core}/esm/components/Alert/Alert.module.mjs`,
        `${core}/styles/Alert.css`,
        `${core}/styles/baseline.css`,
      ]),
    ).toEqual([])
  })
})
