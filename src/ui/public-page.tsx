import { Box, Center, Paper, Stack, Title } from '@mantine/core'
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
            {/* A plain image: the logo is ours and always there, no fallback needed. */}
            <img
              src="/logo.svg"
              alt="Glow Rewards"
              width={200}
              height={40}
              className={classes.logo}
            />
          </Center>
          {/* The theme's card (border, small shadow, medium radius) on Paper, which every page
              loads anyway: the first page of a visitor needs no Card component. */}
          <Paper withBorder shadow="sm" radius="md" className={classes.card}>
            <Stack gap="md">
              <Title order={1} size="h2" ta="center">
                {title}
              </Title>
              {children}
            </Stack>
          </Paper>
        </Stack>
      </Center>
    </Box>
  )
}
