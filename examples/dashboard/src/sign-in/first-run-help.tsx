/** How to get an API key on a new service: the command of the README. */
export function FirstRunHelp() {
  return (
    <section className="card first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title">First time here?</h2>
      <p>Stratbox has no sign-up page: an operator creates users from the command line, where the service runs. In the repository:</p>
      <pre>
        <code>npx -y pnpm@10 cli create-user alice</code>
      </pre>
      <p>
        It prints <code>{'{"userId":"usr_...","apiKey":"sbx_..."}'}</code>. Paste the <code>apiKey</code> above: it is shown once, and this tab keeps it until
        you sign out or close the tab.
      </p>
      <p>
        Another Stratbox service works too, if it allows this page's origin (<code>cors.origins</code> of its router): give its address as the server.
      </p>
    </section>
  );
}
