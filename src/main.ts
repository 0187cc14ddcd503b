import { mount } from 'svelte';
import App from './ui/App.svelte';
import './ui/theme.css';
// The service worker's register (virtual:pwa-register) imports workbox-window once the page has
// loaded, on every page: imported here as well, it comes inside this script rather than as a
// request of its own, and the first page's scripts are this one's static imports.
import 'workbox-window';

const target = document.getElementById('app');
if (!target) throw new Error('#app is missing from index.html');
export default mount(App, { target });
