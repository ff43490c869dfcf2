import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: { target: 'safari15', outDir: 'dist', emptyOutDir: true },
  // Stylesheets are read as text by the design tests (design-tokens,
  // contrast); without this Vitest hands them over empty.
  test: { environment: 'jsdom', include: ['src/**/*.test.ts'], css: { include: [/\.css/] } },
});
