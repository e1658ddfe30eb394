import { MantineProvider } from '@mantine/core'
import { renderToString } from 'react-dom/server'
import { cssVariablesResolver, theme } from '#src/app/theme.ts'
import { WalletSignIn } from './sign-in/wallet-sign-in.tsx'
import { WalletApp } from './wallet-app.tsx'

/** Where the server writes the practice's name into the prerendered screen (server/static.ts). */
export const PRACTICE_NAME_SLOT = '%GLOW_PRACTICE_NAME%'

/**
 * The signed-out wallet's first screen (the sign-in) as HTML, rendered at build time
 * (scripts/lib/prerender-wallet.ts) into wallet.html's #root: the page paints before its script
 * has arrived, and the app's first render, the same screen, replaces it without a visible change.
 */
export function renderSignedOutScreen(): string {
  return renderToString(
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="light"
      forceColorScheme="light"
    >
      <WalletApp practiceId={0} practiceName={PRACTICE_NAME_SLOT} signIn={WalletSignIn} />
    </MantineProvider>,
  )
}
