import { Anchor, Group, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { env } from '#src/lib/env.ts'
import { AnchorLink } from '#src/ui/links.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'

/**
 * A public page of the product's own documents: the Terms, the Business Associates
 * Agreement and About, which the shell footer opens when the practice set no link of its own.
 * Each says where the others are and how to reach support.
 */
export function DocumentPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <PublicPage title={title} width={760}>
      {children}
      <Group
        component="nav"
        aria-label="Glow Rewards documents"
        gap="md"
        justify="center"
        wrap="wrap"
      >
        <AnchorLink to="/about">About</AnchorLink>
        <AnchorLink to="/terms">Terms and Conditions</AnchorLink>
        <AnchorLink to="/agreement">Business Associates Agreement</AnchorLink>
        <Anchor href={`mailto:${env.VITE_SUPPORT_EMAIL}`}>Support Centre</Anchor>
      </Group>
      <Text size="sm" c="dimmed" ta="center">
        Signed in? <AnchorLink to="/dashboard">Back to the portal</AnchorLink>
      </Text>
    </PublicPage>
  )
}
