// The docs theme's layout, kvcalc.css preloaded on every page (a page reached by a
// client-side navigation then shows its calculators styled at once), and the loader.
import { Footer, Layout, Navbar } from 'nextra-theme-docs';
import { Head } from 'nextra/components';
import { getPageMap } from 'nextra/page-map';
import 'nextra-theme-docs/style.css';
import { KvCalcLoader } from '../components/kvcalc-loader.jsx';

export const metadata = { title: 'kvcalc on Nextra' };

export default async function RootLayout({ children }) {
  return (
    <html lang="en" dir="ltr" suppressHydrationWarning>
      <Head>
        <link rel="preload" href="/kvcalc.css" as="style" />
      </Head>
      <body>
        <Layout navbar={<Navbar logo={<b>kvcalc on Nextra</b>} />} footer={<Footer>kvcalc on Nextra</Footer>} pageMap={await getPageMap()}>
          {children}
        </Layout>
        <KvCalcLoader />
      </body>
    </html>
  );
}
