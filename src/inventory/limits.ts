/**
 * More RDMA devices than any node has: an 8-GPU node carries up to ~20 (rails, management, BlueField functions), and
 * SR-IOV virtual functions can add a few dozen per port; beyond this the input is damaged or hostile.
 */
export const MAX_HCAS = 256;
