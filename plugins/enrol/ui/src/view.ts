export default function mount(element: HTMLElement): () => void {
  element.textContent = 'New PCs';
  return () => {
    element.textContent = '';
  };
}
