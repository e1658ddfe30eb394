import { Group, Loader, Paper, Text } from '@mantine/core'
import classes from './page-loading.module.css'

/**
 * The page-loading indicator: 'Please wait...' while a navigation is in
 * progress. The status region stays in the page so screen readers announce the text when it
 * appears.
 */
export function PageLoadingIndicator({ visible }: { visible: boolean }) {
  return (
    <div role="status" className={classes.root}>
      {visible && (
        <Paper shadow="md" radius="xl" px="md" py={6} withBorder>
          <Group gap="xs" wrap="nowrap">
            <Loader size="xs" aria-hidden />
            <Text size="sm">Please wait...</Text>
          </Group>
        </Paper>
      )}
    </div>
  )
}
