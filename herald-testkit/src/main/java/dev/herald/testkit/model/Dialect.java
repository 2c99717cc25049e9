package dev.herald.testkit.model;

/**
 * How a scripted completion is rendered on the wire: like OpenAI, or with the deviations of a local server.
 * Only streamed replies differ much; non-streamed replies differ in reasoning field and ids.
 */
public enum Dialect {
    /** Every chunk has id, object, created, model and indexed choices; a usage chunk with empty choices only when asked for. */
    OPENAI,
    /** Ollama-like: no {@code id} on chunks; reasoning as {@code reasoning}; a last chunk with nothing but {@code usage}. */
    OLLAMA,
    /** vLLM-like: always a usage chunk with empty {@code choices}; reasoning as {@code reasoning}. */
    VLLM,
    /** llama.cpp-like: no {@code index} on tool-call deltas; reasoning as {@code reasoning_content}; usage on the finish chunk. */
    LLAMA_CPP
}
