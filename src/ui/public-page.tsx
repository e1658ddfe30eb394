import { Box, Card, Center, Image, Stack, Title } from '@mantine/core'
import { type ReactNode, useEffect } from 'react'
import { notePageMounted } from '#src/lib/prerender-contract.ts'
import classes from './public-page.module.css'

/** Props of {@link PublicPage}. */
export type PublicPageProps = {
  /** The page's heading (rendered as its h1). */
  title: ReactNode
  children: ReactNode
  /** Maximum width of the card in px; 440 suits a form, wider suits the wizard. */
  width?: number
}

/**
 * The frame of every public screen (sign-in, reset, sign-up, registration, thank-you,
 * unsubscribe, 404): the product logo above a centred card on a soft background.
 */
export function PublicPage({ title, children, width = 440 }: PublicPageProps) {
  // The first public page to mount tells a prerendered page's start-up that it is hydrated.
  useEffect(notePageMounted, [])
  return (
    <Box component="main" className={classes.root}>
      <Center>
        <Stack gap="lg" w="100%" maw={width} align="stretch">
          <Center>
            <Image src="/logo.svg" alt="Glow Rewards" w={200} h={40} fit="contain" />
          </Center>
          <Card padding="xl" className={classes.card}>
            <Stack gap="md">
              <Title order={1} size="h2" ta="center">
                {title}
              </Title>
              {children}
            </Stack>
          </Card>
        </Stack>
      </Center>
    </Box>
  )
}
