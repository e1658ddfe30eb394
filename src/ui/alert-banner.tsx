import { Alert, Box } from '@mantine/core'
import { clearAlert, useAlert } from '#src/lib/alerts.ts'
import classes from './alert-banner.module.css'

/**
 * Shows the page-level alert (success in green, danger in red) above the page, announced to
 * screen readers (`role="alert"`), with a close button. The alert store clears it on navigation.
 */
export function AlertBanner() {
  const alert = useAlert()
  return (
    <Box className={classes.root} aria-live="assertive">
      {alert && (
        <Alert
          role="alert"
          color={alert.type === 'success' ? 'green' : 'red'}
          withCloseButton
          closeButtonLabel="Close message"
          onClose={clearAlert}
          className={classes.alert}
        >
          {alert.message}
        </Alert>
      )}
    </Box>
  )
}
