import type { Page } from '@playwright/test'

/** The stand-in's buttons: tick the check, or let it expire (as the real widget does after a while). */
export const CAPTCHA_BUTTONS = { verify: 'I am human', expire: 'Let the check expire' } as const

// hCaptcha's api.js in miniature: `render` draws the two buttons and calls the widget's
// callbacks; the loader's `onload` callback named in the script address is called at the end.
const STAND_IN = `(function () {
  var widgets = {}
  var next = 1
  window.hcaptcha = {
    render: function (container, params) {
      var id = 'stand-in-' + next++
      var box = document.createElement('div')
      var verify = document.createElement('button')
      verify.type = 'button'
      verify.textContent = ${JSON.stringify(CAPTCHA_BUTTONS.verify)}
      var expire = document.createElement('button')
      expire.type = 'button'
      expire.textContent = ${JSON.stringify(CAPTCHA_BUTTONS.expire)}
      widgets[id] = { params: params, response: '', box: box }
      verify.onclick = function () {
        widgets[id].response = 'stand-in-token-' + Date.now()
        if (params.callback) params.callback(widgets[id].response)
      }
      expire.onclick = function () {
        widgets[id].response = ''
        if (params['expired-callback']) params['expired-callback']()
      }
      box.appendChild(verify)
      box.appendChild(expire)
      container.appendChild(box)
      return id
    },
    getResponse: function (id) { return widgets[id] ? widgets[id].response : '' },
    getRespKey: function () { return 'stand-in-key' },
    reset: function (id) { if (widgets[id]) widgets[id].response = '' },
    remove: function (id) { if (widgets[id]) { widgets[id].box.remove(); delete widgets[id] } },
    execute: function () {},
    setData: function () {},
    close: function () {},
  }
  var onload = /[?&]onload=([^&]+)/.exec(document.currentScript.src)
  if (onload && typeof window[onload[1]] === 'function') window[onload[1]]()
})()`

/**
 * Serves a stand-in for hCaptcha's widget script (the test network cannot reach hCaptcha) and
 * refuses every other hCaptcha request (its error reporting).
 */
export async function standInCaptcha(page: Page): Promise<void> {
  await page.route(/^https:\/\/([\w-]+\.)*hcaptcha\.com\//, async (route) => {
    if (new URL(route.request().url()).pathname === '/1/api.js') {
      await route.fulfill({ contentType: 'text/javascript', body: STAND_IN })
    } else {
      await route.abort()
    }
  })
}
