// The hello plugin's view in the web console. The console imports this module and calls its
// default export with an element to draw into and { api, lang, selection }; the function it
// returns is called when the view is closed.
const words = {
  en: { label: 'Client address', ask: 'Say hello', none: 'Select a client in the fleet view, or type its address.' },
  es: { label: 'Dirección del equipo', ask: 'Saludar', none: 'Seleccione un equipo en la vista de equipos, o escriba su dirección.' },
};

export default function mount(element, { api, lang, selection }) {
  const text = words[lang] ?? words.en;
  const form = document.createElement('form');
  const label = document.createElement('label');
  label.textContent = `${text.label} `;
  const input = document.createElement('input');
  input.name = 'client';
  input.value = selection[0] ?? '';
  label.append(input);
  const button = document.createElement('button');
  button.type = 'submit';
  button.textContent = text.ask;
  const answer = document.createElement('p');
  answer.setAttribute('role', 'status');
  answer.textContent = selection.length ? '' : text.none;
  form.append(label, ' ', button, answer);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const { message } = await api('GET', '/hello', { client: input.value });
      answer.textContent = message;
    } catch (error) {
      answer.textContent = error.message;
    }
  });
  element.append(form);
  return () => form.remove();
}
