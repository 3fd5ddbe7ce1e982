// The end-to-end bench tests load both cores for minutes; the load-engine tests count what a stalled or
// refused server does within bounds. Run the classes one after another so neither starves the other.
[assembly: CollectionBehavior(DisableTestParallelization = true)]
